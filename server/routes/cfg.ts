/**
 * Read-only configuration lookups (`/cfg/apps/...`): applications, versions and profiles of the catalog.
 * Every role may read them. Identifiers, versions and tags are checked against the contract before a
 * handler runs.
 */
import type { FastifyInstance } from 'fastify';
import { iconAddress } from '../catalog/icons.ts';
import type { Catalog, CatalogApp, CatalogProfile } from '../catalog/model.ts';
import { filterApps, findApp, findVersion, profilesFor, splitTags } from '../catalog/queries.ts';
import { notFound } from '../errors.ts';
import { contractRoute, type RouteOf } from '../http/contract.ts';

function profileBody(profile: CatalogProfile) {
  return { id: profile.id, name: profile.name, description: profile.description };
}

function appBody({ id, name, description, tags, icon }: CatalogApp) {
  return { id, name, description, tags, ...(icon ? { icon: iconAddress(icon) } : {}) };
}

/** Registers the /cfg routes under the app's /api prefix. */
export function cfgRoutes(app: FastifyInstance, catalog: Catalog): void {
  app.route<RouteOf<'listApps'>>({
    ...contractRoute('get', '/cfg/apps'),
    handler: async (request) => {
      const items = filterApps(catalog, splitTags(request.query.tags ?? [])).map(appBody);
      return { count: items.length, items };
    },
  });

  app.route<RouteOf<'getApp'>>({
    ...contractRoute('get', '/cfg/apps/{id}'),
    handler: async (request) => {
      const { id } = request.params;
      const found = findApp(catalog, id);
      if (!found) throw notFound(`No application has id "${id}".`);
      return appBody(found);
    },
  });

  app.route<RouteOf<'listVersions'>>({
    ...contractRoute('get', '/cfg/apps/{id}/versions'),
    handler: async (request) => {
      const { id } = request.params;
      const found = findApp(catalog, id);
      if (!found) throw notFound(`No application has id "${id}".`);
      // Declared arguments travel with each version (CONTRACT §20); undeclared versions carry none.
      const items = found.versions.map((v) => ({
        version: v.version,
        ...(v.arguments ? { arguments: v.arguments } : {}),
      }));
      return { count: items.length, items };
    },
  });

  app.route<RouteOf<'getVersion'>>({
    ...contractRoute('get', '/cfg/apps/{id}/versions/{version}'),
    handler: async (request) => {
      const { id, version } = request.params;
      const found = findApp(catalog, id);
      if (!found) throw notFound(`No application has id "${id}".`);
      const v = findVersion(found, version);
      if (!v) throw notFound(`${found.name} has no version "${version}"; list its versions to pick one.`);
      return { version: v.version, description: v.description };
    },
  });

  app.route<RouteOf<'listProfiles'>>({
    ...contractRoute('get', '/cfg/apps/{id}/versions/{version}/profiles'),
    handler: async (request) => {
      const { id, version } = request.params;
      const scope = profilesFor(catalog, id, version);
      if (!scope.ok) throw notFound(missingMessage(scope.missing, id, version));
      return { count: scope.profiles.length, items: scope.profiles.map(profileBody) };
    },
  });

  app.route<RouteOf<'getProfile'>>({
    ...contractRoute('get', '/cfg/apps/{id}/versions/{version}/profiles/{profile}'),
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
}

function missingMessage(missing: 'application' | 'version', id: string, version: string): string {
  return missing === 'application'
    ? `No application has id "${id}".`
    : `Application "${id}" has no version "${version}"; list its versions to pick one.`;
}
