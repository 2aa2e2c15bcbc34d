/**
 * Serves the image files the catalog names (server/catalog/images.ts), its icons and its pictures, and nothing
 * else: a path that no application's `icon` (or `picture`) names is a 404, so no request reaches another file
 * of the catalog's folder.
 */
import { readFile } from 'node:fs/promises';
import type { FastifyPluginAsync } from 'fastify';
import { IMAGE_KEYS, IMAGE_KINDS, imageFiles } from '../catalog/images.ts';
import type { Catalog } from '../catalog/model.ts';

export interface CatalogImagesOptions {
  catalog: Catalog;
  /** The catalog file, beside which its images sit. */
  catalogFile: string;
}

/**
 * GET /catalog-icons/* and GET /catalog-pictures/*, alike. Public, as the portal's own files are: an <img> sends
 * no token.
 */
export const catalogImages: FastifyPluginAsync<CatalogImagesOptions> = async (
  app,
  { catalog, catalogFile },
) => {
  for (const key of IMAGE_KEYS) {
    const files = imageFiles(catalog, catalogFile, key);
    app.get(`${IMAGE_KINDS[key].route}*`, async (request, reply) => {
      const image = files.get((request.params as { '*': string })['*']);
      if (!image) return reply.code(404).send({ detail: `No application of the catalog has this ${key}.` });
      let body: Buffer;
      try {
        body = await readFile(image.file);
      } catch {
        request.log.warn({ file: image.file }, `the catalog names a ${key} file that cannot be read`);
        return reply
          .code(404)
          .send({ detail: `The catalog names this ${key}, but its file cannot be read.` });
      }
      // A few minutes: images rarely change, and a changed catalog should show soon after a restart.
      return reply.type(image.type).header('cache-control', 'public, max-age=300').send(body);
    });
  }
};
