/**
 * Read-only configuration lookups (`/cfg/apps/...`): applications, versions and profiles of the catalog.
 * Every role may read them. Identifiers, versions and tags are checked against the contract before a
 * handler runs.
 */
import type { FastifyPluginAsync } from 'fastify';
import { versionOpens } from '../catalog/display-opens.ts';
import { imageAddress } from '../catalog/images.ts';
import type { Catalog, CatalogApp, CatalogProfile } from '../catalog/model.ts';
import { filterApps, findApp, findVersion, profilesFor, splitTags } from '../catalog/queries.ts';
import { notFound } from '../errors.ts';
import { contractRoute } from '../http/contract.ts';

function profileBody(profile: CatalogProfile) {
  return { id: profile.id, name: profile.name, description: profile.description };
}

function appBody({ id, name, description, tags, icon, picture }: CatalogApp) {
  return {
    id,
    name,
    description,
    tags,
    ...(icon ? { icon: imageAddress('icon', icon) } : {}),
    ...(picture ? { picture: imageAddress('picture', picture) } : {}),
  };
}

export interface CfgRoutesOptions {
  catalog: Catalog;
}

/** The /cfg routes; the plugin is registered under the app's /api prefix. */
export const cfgRoutes: FastifyPluginAsync<CfgRoutesOptions> = async (app, { catalog }) => {
  contractRoute(app, 'listApps', {
    handler: async (request) => {
      const items = filterApps(catalog, splitTags(request.query.tags ?? [])).map(appBody);
      return { count: items.length, items };
    },
  });

  contractRoute(app, 'getApp', {
    handler: async (request) => {
      const { id } = request.params;
      const found = findApp(catalog, id);
      if (!found) throw notFound(`No application has id "${id}".`);
      return appBody(found);
    },
  });

  contractRoute(app, 'listVersions', {
    handler: async (request) => {
      const { id } = request.params;
      const found = findApp(catalog, id);
      if (!found) throw notFound(`No application has id "${id}".`);
      // Declared arguments travel with each version (CONTRACT §20); undeclared versions carry none.
      // So do the kinds of file a version opens, for the portal's "Open with" (display-opens.ts).
      const items = found.versions.map((v) => {
        const opens = versionOpens(v);
        return {
          version: v.version,
          ...(opens ? { opens } : {}),
          ...(v.arguments ? { arguments: v.arguments } : {}),
        };
      });
      return { count: items.length, items };
    },
  });

  contractRoute(app, 'getVersion', {
    handler: async (request) => {
      const { id, version } = request.params;
      const found = findApp(catalog, id);
      if (!found) throw notFound(`No application has id "${id}".`);
      const v = findVersion(found, version);
      if (!v) throw notFound(`${found.name} has no version "${version}"; list its versions to pick one.`);
      const opens = versionOpens(v);
      return { version: v.version, description: v.description, ...(opens ? { opens } : {}) };
    },
  });

  contractRoute(app, 'listProfiles', {
    handler: async (request) => {
      const { id, version } = request.params;
      const scope = profilesFor(catalog, id, version);
      if (!scope.ok) throw notFound(missingMessage(scope.missing, id, version));
      return { count: scope.profiles.length, items: scope.profiles.map(profileBody) };
    },
  });

  contractRoute(app, 'getProfile', {
    handler: async (request) => {
      const { id, version, profile } = request.params;
      const scope = profilesFor(catalog, id, version);
      if (!scope.ok) throw notFound(missingMessage(scope.missing, id, version));
      const found = scope.profiles.find((p) => p.id === profile);
      if (!found)
        throw notFound(`Profile "${profile}" does not exist or does not apply to ${id} ${version}.`);
      return profileBody(found);
    },
  });
};

function missingMessage(missing: 'application' | 'version', id: string, version: string): string {
  return missing === 'application'
    ? `No application has id "${id}".`
    : `Application "${id}" has no version "${version}"; list its versions to pick one.`;
}
