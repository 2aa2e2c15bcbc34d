/**
 * The built portal at `/` with a fallback to index.html for client-side routes, and the contract at
 * /api/openapi.json with an interactive page at /api/docs.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { openApiDocument } from '../http/validation.ts';

const API_NOT_FOUND = 'No such endpoint; see /api/docs.';
const NOT_BUILT =
  'The portal is not built yet: run `npm run build`, then reload this page. The API is at /api.';

export interface PortalOptions {
  /** The built portal (vite build's output). */
  staticDir: string;
  /** The methods a known API address takes, for the 405 of another method; none by default. */
  allowedMethods?: (path: string) => string[];
  /** The service's STREAMGATE_SIGNALING, which the portal's config.json carries as `signaling` (CONTRACT §21). */
  signaling?: string;
  /** Sign-in with the site's identity provider, which config.json carries as `auth` (CONTRACT §22). */
  auth?: { issuer: string; client_id: string; scopes: string };
}

/**
 * The portal, the docs and the answers to unknown addresses (JSON under /api, the SPA elsewhere).
 */
const portalPlugin: FastifyPluginAsync<PortalOptions> = async (app, options) => {
  const { staticDir, allowedMethods = () => [] } = options;
  await app.register(fastifySwagger, {
    mode: 'static',
    specification: { document: openApiDocument as never },
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs' });
  app.get('/api/openapi.json', async () => openApiDocument);
  // Unknown API addresses answer at once, rather than through the file server, which reads the
  // directory to suggest a spelling for every miss.
  app.all('/api/*', async (request, reply) => {
    const allowed = allowedMethods(request.url.split('?')[0] ?? '');
    if (allowed.length === 0) return reply.code(404).send({ detail: API_NOT_FOUND });
    return reply
      .code(405)
      .header('allow', allowed.join(', '))
      .send({ detail: `This address does not take ${request.method}; it takes ${allowed.join(', ')}.` });
  });

  const built = existsSync(path.join(staticDir, 'index.html'));
  // The built portal's config.json with the service's signaling and sign-in settings in it: one setting for
  // both sides.
  if (built && (options.signaling !== undefined || options.auth !== undefined)) {
    const settings = {
      ...(options.signaling !== undefined ? { signaling: options.signaling } : {}),
      ...(options.auth ? { auth: options.auth } : {}),
    };
    app.get('/config.json', async (_request, reply) => {
      const text = await readFile(path.join(staticDir, 'config.json'), 'utf8').catch(() => '{}');
      let served: Record<string, unknown> = {};
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
          served = parsed as Record<string, unknown>;
      } catch {
        // A broken file is served as the defaults: the portal falls back the same way.
      }
      return reply.header('cache-control', 'no-store').send({ ...served, ...settings });
    });
  }
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
    if (
      !api &&
      built &&
      (request.method === 'GET' || request.method === 'HEAD') &&
      isPage(url, request.headers.accept)
    ) {
      return reply.type('text/html; charset=utf-8').sendFile('index.html');
    }
    return reply.code(404).send({ detail: api ? API_NOT_FOUND : 'Not found.' });
  });
};

/** For the whole app (fastify-plugin): the answer to every address no route has is the app's own. */
export const portal = fp(portalPlugin, { name: 'streamgate-portal', fastify: '5.x' });

/**
 * Whether a request the files did not answer is for a client-side route. Application ids and versions have
 * dots (`/apps/omni.usd_explorer`, `/versions/1.2.0`), so a dot cannot tell a route from a file: a browser
 * loading a page asks for HTML, and that gets the portal whatever the path holds. Other requests get it only
 * for names without an extension, so that a missing script or image stays a 404, as does anything under
 * the build's own assets folder.
 */
function isPage(url: string, accept: string | undefined): boolean {
  if (url.startsWith('/assets/')) return false;
  return (accept ?? '').includes('text/html') || path.extname(url) === '';
}
