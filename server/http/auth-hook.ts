/**
 * Resolves the caller of every /api request before anything else runs, the way FastAPI's bearer
 * dependency does: a missing or unknown token is a 403 before the request is even validated.
 */
import type { FastifyInstance } from 'fastify';
import { ANONYMOUS, type Principal, type TokenStore } from '../auth/tokens.ts';
import { HttpError, NOT_AUTHENTICATED } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; set for every /api request. */
    principal: Principal;
  }
}

/** Paths under /api that anyone may read: the contract itself. */
const PUBLIC = [/^\/api\/openapi\.json$/, /^\/api\/docs(\/|$)/];

/** Installs the hook; `tokens` null means no authentication (every caller is `anonymous` with every role). */
export function installAuth(app: FastifyInstance, tokens: TokenStore | null): void {
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request) => {
    const url = request.url.split('?')[0] ?? '';
    if (!url.startsWith('/api/') || PUBLIC.some((re) => re.test(url))) return;
    if (tokens === null) {
      request.principal = ANONYMOUS;
      return;
    }
    const principal = tokens.authenticate(request.headers.authorization);
    if (!principal) throw new HttpError(403, NOT_AUTHENTICATED);
    request.principal = principal;
  });
}
