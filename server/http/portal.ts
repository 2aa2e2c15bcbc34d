/**
 * The built portal at `/` with a fallback to index.html for client-side routes, and the contract at
 * /api/openapi.json with an interactive page at /api/docs.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { openApiDocument } from './validation.ts';

const API_NOT_FOUND = 'No such endpoint; see /api/docs.';
const NOT_BUILT =
  'The portal is not built yet: run `npm run build`, then reload this page. The API is at /api.';

/** Registers the portal, the docs and the not-found answers (JSON under /api, the SPA elsewhere). */
export async function installPortal(app: FastifyInstance, staticDir: string): Promise<void> {
  await app.register(fastifySwagger, {
    mode: 'static',
    specification: { document: openApiDocument as never },
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs' });
  app.get('/api/openapi.json', async () => openApiDocument);
  // Unknown API addresses answer at once, rather than through the file server, which reads the
  // directory to suggest a spelling for every miss.
  app.all('/api/*', async (_request, reply) => reply.code(404).send({ detail: API_NOT_FOUND }));

  const built = existsSync(path.join(staticDir, 'index.html'));
  if (built) {
    await app.register(fastifyStatic, {
      root: staticDir,
      prefix: '/',
      wildcard: true,
      index: ['index.html'],
    });
  } else {
    app.get('/', async (_request, reply) => reply.type('text/plain; charset=utf-8').send(NOT_BUILT));
  }

  app.setNotFoundHandler(async (request, reply) => {
    const url = request.url.split('?')[0] ?? '';
    const api = url === '/api' || url.startsWith('/api/');
    // A missing asset (a name with an extension) stays a 404; only client-side routes get the page.
    const page = path.extname(url) === '';
    if (!api && page && built && (request.method === 'GET' || request.method === 'HEAD')) {
      return reply.type('text/html; charset=utf-8').sendFile('index.html');
    }
    return reply.code(404).send({ detail: api ? API_NOT_FOUND : 'Not found.' });
  });
}
