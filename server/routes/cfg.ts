/**
 * Read-only configuration lookups (`/cfg/apps/...`): applications, versions and profiles of the catalog.
 * Every role may read them.
 */
import type { FastifyInstance } from 'fastify';
import type { Catalog, CatalogProfile } from '../catalog/model.ts';
import { filterApps, findApp, findVersion, profilesFor, splitTags } from '../catalog/queries.ts';
import { notFound } from '../http/errors.ts';
import { checkAll, component } from '../http/validation.ts';

const APP_ID = component('parameters/AppId/schema');
const APP_ID_OR_WILDCARD = component('parameters/AppIdOrWildcard/schema');
const VERSION = component('parameters/Version/schema');
const VERSION_OR_WILDCARD = component('parameters/VersionOrWildcard/schema');
const IDENTIFIER = component('schemas/Identifier');
const TAGS = '/paths/~1cfg~1apps/get/parameters/0/schema';

interface Params {
  id: string;
  version: string;
  profile: string;
}

function profileBody(profile: CatalogProfile) {
  return { id: profile.id, name: profile.name, description: profile.description };
}

/** Registers the /cfg routes under the app's /api prefix. */
export function cfgRoutes(app: FastifyInstance, catalog: Catalog): void {
  app.get<{ Querystring: { tags?: string | string[] } }>('/cfg/apps', async (request) => {
    const raw = request.query.tags;
    const tags = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    checkAll([{ pointer: TAGS, value: tags, loc: ['query', 'tags'] }]);
    const items = filterApps(catalog, splitTags(tags)).map(({ id, name, description, tags: appTags }) => ({
      id,
      name,
      description,
      tags: appTags,
    }));
    return { count: items.length, items };
  });

  app.get<{ Params: Pick<Params, 'id'> }>('/cfg/apps/:id', async (request) => {
    const { id } = request.params;
    checkAll([{ pointer: APP_ID, value: id, loc: ['path', 'id'] }]);
    const found = findApp(catalog, id);
    if (!found) throw notFound(`No application has id "${id}".`);
    return { id: found.id, name: found.name, description: found.description, tags: found.tags };
  });

  app.get<{ Params: Pick<Params, 'id'> }>('/cfg/apps/:id/versions', async (request) => {
    const { id } = request.params;
    checkAll([{ pointer: APP_ID, value: id, loc: ['path', 'id'] }]);
    const found = findApp(catalog, id);
    if (!found) throw notFound(`No application has id "${id}".`);
    return { count: found.versions.length, items: found.versions.map((v) => ({ version: v.version })) };
  });

  app.get<{ Params: Pick<Params, 'id' | 'version'> }>('/cfg/apps/:id/versions/:version', async (request) => {
    const { id, version } = request.params;
    checkAll([
      { pointer: APP_ID, value: id, loc: ['path', 'id'] },
      { pointer: VERSION, value: version, loc: ['path', 'version'] },
    ]);
    const found = findApp(catalog, id);
    if (!found) throw notFound(`No application has id "${id}".`);
    const v = findVersion(found, version);
    if (!v) throw notFound(`${found.name} has no version "${version}"; list its versions to pick one.`);
    return { version: v.version, description: v.description };
  });

  app.get<{ Params: Pick<Params, 'id' | 'version'> }>(
    '/cfg/apps/:id/versions/:version/profiles',
    async (request) => {
      const { id, version } = request.params;
      checkAll([
        { pointer: APP_ID_OR_WILDCARD, value: id, loc: ['path', 'id'] },
        { pointer: VERSION_OR_WILDCARD, value: version, loc: ['path', 'version'] },
      ]);
      const scope = profilesFor(catalog, id, version);
      if (!scope.ok) throw notFound(missingMessage(scope.missing, id, version));
      return { count: scope.profiles.length, items: scope.profiles.map(profileBody) };
    },
  );

  app.get<{ Params: Params }>('/cfg/apps/:id/versions/:version/profiles/:profile', async (request) => {
    const { id, version, profile } = request.params;
    checkAll([
      { pointer: APP_ID_OR_WILDCARD, value: id, loc: ['path', 'id'] },
      { pointer: VERSION_OR_WILDCARD, value: version, loc: ['path', 'version'] },
      { pointer: IDENTIFIER, value: profile, loc: ['path', 'profile'] },
    ]);
    const scope = profilesFor(catalog, id, version);
    if (!scope.ok) throw notFound(missingMessage(scope.missing, id, version));
    const found = scope.profiles.find((p) => p.id === profile);
    if (!found) throw notFound(`Profile "${profile}" does not exist or does not apply to ${id} ${version}.`);
    return profileBody(found);
  });
}

function missingMessage(missing: 'application' | 'version', id: string, version: string): string {
  return missing === 'application'
    ? `No application has id "${id}".`
    : `Application "${id}" has no version "${version}"; list its versions to pick one.`;
}
