/**
 * Resolves the caller of every /api request (and of /metrics) before anything else runs, the way
 * FastAPI's bearer dependency does: a missing or unknown token is a 403 before the request is even
 * validated. An address that presented too many wrong credentials gets a 429 instead, before its
 * credential is looked at (auth-throttle.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { ANONYMOUS, type Principal, type TokenStore } from '../auth/tokens.ts';
import { DomainError, NOT_AUTHENTICATED } from '../errors.ts';
import { AuthThrottle } from './auth-throttle.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; set for every /api request. */
    principal: Principal;
  }
}

/**
 * Routes under /api that anyone may reach: the contract itself, the answer to unknown addresses, and WHEP
 * through the door, whose viewer ticket the session's application checks (a watch link needs no user token).
 */
const PUBLIC = [
  /^\/api\/openapi\.json$/,
  /^\/api\/docs(\/|$)/,
  /^\/api\/\*$/,
  /^\/api\/stream\/:session_id\/whep(\/:viewer_id)?$/,
];
/** Outside /api, only the metrics need a caller (an admin): they tell how busy the service is. */
const METRICS = '/metrics';

export interface AuthOptions {
  /** null: no authentication (every caller is `anonymous` with every role). */
  tokens: TokenStore | null;
  /** Counts failed authentications per client address; a new one by default. */
  throttle?: AuthThrottle;
}

/** The hook, for the whole app (fastify-plugin): every route registered after it has its caller resolved. */
const authPlugin: FastifyPluginAsync<AuthOptions> = async (
  app,
  { tokens, throttle = new AuthThrottle() },
) => {
  app.decorateRequest('principal', null as unknown as Principal);
  // Callback style rather than async: this runs on every request, and a promise per hook costs.
  app.addHook('onRequest', (request, _reply, done) => {
    // The matched route, not the URL: an address that is no endpoint is a 404 for everyone, as in
    // FastAPI, where no dependency runs then.
    const route = request.routeOptions.url ?? '';
    const guarded = route === METRICS || (route.startsWith('/api/') && !PUBLIC.some((re) => re.test(route)));
    if (!guarded) return done();
    if (tokens === null) {
      request.principal = ANONYMOUS;
      return done();
    }
    const credential = request.headers.authorization;
    // No credential guesses nothing: 403 as ever, and it costs nothing.
    if (!credential) return done(new DomainError(403, NOT_AUTHENTICATED));
    const refusal = throttle.refusal(request.ip, request.log);
    if (refusal) return done(refusal);
    const principal = tokens.authenticate(credential);
    if (!principal) {
      throttle.failed(request.ip);
      return done(new DomainError(403, NOT_AUTHENTICATED));
    }
    request.principal = principal;
    done();
  });
};

export const auth = fp(authPlugin, { name: 'streamgate-auth', fastify: '5.x' });
