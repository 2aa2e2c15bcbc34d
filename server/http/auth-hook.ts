/**
 * Resolves the caller of every /api request (and of /metrics) before anything else runs, the way
 * FastAPI's bearer dependency does: a missing or unknown token is a 403 before the request is even
 * validated. An address that presented too many wrong credentials gets a 429 instead, before its
 * credential is looked at (auth-throttle.ts).
 *
 * A credential that looks like a JWT is an access token of the site's identity provider when one is set
 * (CONTRACT §22, auth/oidc.ts): one verified before is answered at once, a new one after its verification.
 * Everything else, and a JWT the provider refuses, is looked up in the tokens file as before.
 *
 * A few routes also take a viewer ticket of their session in its place (the session's files, which a person
 * with a control ticket reaches without an API token). Only the session's secret tells what a ticket grants, so
 * such a credential is let through to the route, unverified, as `viewerTicket`, with a principal that has no
 * role: neither refused here nor counted as a failed sign-in. The route checks it.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { bearerJwt, type OidcVerifier } from '../auth/oidc.ts';
import { ANONYMOUS, type Principal, type TokenStore } from '../auth/tokens.ts';
import { bearerToken, isViewerTicket } from '../../protocol/viewer-ticket.ts';
import { DomainError, NOT_AUTHENTICATED } from '../errors.ts';
import { AuthThrottle } from './auth-throttle.ts';
import { NO_AUDIT, type Audit } from '../audit/audit.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; set for every /api request. */
    principal: Principal;
    /**
     * A viewer ticket presented where an API token would be, on a route that takes one (TICKET_ROUTES), not yet
     * verified; null otherwise. Its principal is TICKET_HOLDER until the route has checked it.
     */
    viewerTicket: string | null;
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
/** Routes that take a viewer ticket of their session instead of a user's token: the session's files. */
const TICKET_ROUTES = [/^\/api\/stream\/:session_id\/files(\/:name)?$/];
/** Who presents a viewer ticket, until the route has checked it: nobody with any role. */
export const TICKET_HOLDER: Principal = Object.freeze({ user: '(viewer ticket)', roles: [] });
/** Outside /api, only the metrics need a caller (an admin): they tell how busy the service is. */
const METRICS = '/metrics';

export interface AuthOptions {
  /** null, and no `oidc` either: no authentication (every caller is `anonymous` with every role). */
  tokens: TokenStore | null;
  /** The site's identity provider (CONTRACT §22); null or absent: none. */
  oidc?: OidcVerifier | null;
  /** Counts failed authentications per client address; a new one by default. */
  throttle?: AuthThrottle;
  /** Where failed sign-ins are recorded (CONTRACT §22); none by default. */
  audit?: Audit;
}

/** What a refusal is recorded with: the address and the kind of credential, never the credential. */
interface Failure {
  audit: Audit;
  credential: 'token' | 'access token';
}

/** Lets the request through as `principal`, or refuses it (throws) and counts the failure against its address. */
function settle(
  request: FastifyRequest,
  principal: Principal | null,
  throttle: AuthThrottle,
  failure: Failure,
): void {
  if (!principal) {
    throttle.failed(request.ip);
    failure.audit.record({
      action: 'sign-in-failed',
      user: '(unknown)',
      detail: { address: request.ip, kind: failure.credential },
    });
    throw new DomainError(403, NOT_AUTHENTICATED);
  }
  request.principal = principal;
}

/** The hook, for the whole app (fastify-plugin): every route registered after it has its caller resolved. */
const authPlugin: FastifyPluginAsync<AuthOptions> = async (
  app,
  { tokens, oidc = null, throttle = new AuthThrottle(), audit = NO_AUDIT },
) => {
  app.decorateRequest('principal', null as unknown as Principal);
  app.decorateRequest('viewerTicket', null);
  if (oidc) oidc.log = app.log.child({ component: 'sign-in' });
  app.addHook('onRequest', async (request) => {
    // The matched route, not the URL: an address that is no endpoint is a 404 for everyone, as in
    // FastAPI, where no dependency runs then.
    const route = request.routeOptions.url ?? '';
    const guarded = route === METRICS || (route.startsWith('/api/') && !PUBLIC.some((re) => re.test(route)));
    if (!guarded) return;
    const credential = request.headers.authorization;
    // Before the anonymous set-up's shortcut: a watch link is refused what it may not reach there too.
    const ticket = bearerToken(credential);
    if (ticket !== null && isViewerTicket(ticket) && TICKET_ROUTES.some((re) => re.test(route))) {
      request.principal = TICKET_HOLDER;
      request.viewerTicket = ticket;
      return;
    }
    if (tokens === null && oidc === null) {
      request.principal = ANONYMOUS;
      return;
    }
    // No credential guesses nothing: 403 as ever, and it costs nothing.
    if (!credential) throw new DomainError(403, NOT_AUTHENTICATED);
    const refusal = throttle.refusal(request.ip, request.log);
    if (refusal) throw refusal;
    const jwt = oidc ? bearerJwt(credential) : null;
    const failure: Failure = { audit, credential: jwt === null ? 'token' : 'access token' };
    if (oidc === null || jwt === null) {
      return settle(request, tokens?.authenticate(credential) ?? null, throttle, failure);
    }
    let principal: Principal | null;
    try {
      principal = await oidc.check(jwt);
    } catch (error) {
      // What is wrong, never the token: an admin setting up the provider learns why it is refused.
      request.log.info(
        { reason: (error as Error).message },
        'an access token of the identity provider was refused',
      );
      principal = tokens?.authenticate(credential) ?? null;
    }
    settle(request, principal, throttle, failure);
  });
};

export const auth = fp(authPlugin, { name: 'streamgate-auth', fastify: '5.x' });
