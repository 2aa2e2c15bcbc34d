/**
 * Serves the icon files the catalog names (server/catalog/icons.ts), and nothing else: a path that no
 * application's `icon` names is a 404, so no request reaches another file of the catalog's folder.
 */
import { readFile } from 'node:fs/promises';
import type { FastifyPluginAsync } from 'fastify';
import { ICON_ROUTE, iconFiles } from '../catalog/icons.ts';
import type { Catalog } from '../catalog/model.ts';

export interface CatalogIconsOptions {
  catalog: Catalog;
  /** The catalog file, beside which its icons sit. */
  catalogFile: string;
}

/** GET /catalog-icons/*. Public, as the portal's own files are: an <img> sends no token. */
export const catalogIcons: FastifyPluginAsync<CatalogIconsOptions> = async (
  app,
  { catalog, catalogFile },
) => {
  const files = iconFiles(catalog, catalogFile);
  app.get(`${ICON_ROUTE}*`, async (request, reply) => {
    const icon = files.get((request.params as { '*': string })['*']);
    if (!icon) return reply.code(404).send({ detail: 'No application of the catalog has this icon.' });
    let body: Buffer;
    try {
      body = await readFile(icon.file);
    } catch {
      request.log.warn({ file: icon.file }, 'the catalog names an icon file that cannot be read');
      return reply.code(404).send({ detail: 'The catalog names this icon, but its file cannot be read.' });
    }
    // A few minutes: icons rarely change, and a changed catalog should show soon after a restart.
    return reply.type(icon.type).header('cache-control', 'public, max-age=300').send(body);
  });
};
