/**
 * Streaming sessions (`/stream`): create, read, list and end. Each route takes its schemas from the
 * contract, so that its handler gets checked values; routes resolve the catalog and check who may see
 * what, and the session manager owns the processes and ports.
 */
import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';
import type { components } from '../../api/schema.ts';
import { canUseSessions, isAdmin } from '../auth/tokens.ts';
import type { Catalog } from '../catalog/model.ts';
import { launchArguments, resolveLaunch } from '../catalog/queries.ts';
import { DomainError, forbidden, notFound } from '../errors.ts';
import { checkArguments } from '../http/argument-limits.ts';
import { contractRoute, type RouteOf } from '../http/contract.ts';
import { enforceRateLimit, type RateLimiter } from '../http/rate-limit.ts';
import { enforceUserLimit } from '../http/user-limit.ts';
import type { SessionManager, SessionRecord } from '../sessions/types.ts';
import { stillRoutes } from './still.ts';
import { ticketRoutes } from './tickets.ts';

/**
 * The Session body of the contract; `routes` only once ready. What was launched, when and by whom travel
 * too, so that a list read from another browser can say so.
 */
export function sessionBody(record: SessionRecord, publicHost: string): components['schemas']['Session'] {
  const ready = record.state === 'ready';
  const body: components['schemas']['Session'] = {
    id: record.id,
    status: { condition: record.state, message: record.message, status: ready },
    app: record.appId,
    version: record.version,
    profile: record.profileId,
    created_at: record.createdAt,
    user: record.owner,
    arguments: record.arguments,
  };
  if (ready && record.ports) {
    const { signaling, media } = record.ports;
    body.routes = {
      [publicHost]: [
        { description: 'signaling', protocol: 'TCP', source_port: signaling, destination_port: signaling },
        { description: 'media', protocol: 'UDP', source_port: media, destination_port: media },
      ],
    };
  }
  return body;
}

/** A check that throws as a hook before validation, callback style: it spares a promise per request. */
function before(check: (request: FastifyRequest) => void): preValidationHookHandler {
  return (request, _reply, done) => {
    try {
      check(request);
      done();
    } catch (error) {
      done(error as Error);
    }
  };
}

/** Checked before the request is: a role that may not use sessions learns nothing more (FastAPI's order). */
const requireSessions = before((request) => {
  if (!canUseSessions(request.principal)) {
    throw forbidden(
      'Your role may read the catalog but not use sessions; ask an administrator for the user role.',
    );
  }
});

/** Registers the /stream routes under the app's /api prefix. */
export function streamRoutes(
  app: FastifyInstance,
  catalog: Catalog,
  manager: SessionManager,
  publicHost: string,
  limiter: RateLimiter | null = null,
  userLimit: number | null = null,
  /** Where the applications keep their stills (sessions/still-files.ts); null: no still route. */
  stillDir: string | null = null,
) {
  /** The session if the caller may see it: 404 when unknown, 403 when it is someone else's. */
  function owned(request: FastifyRequest, id: string): SessionRecord {
    const record = manager.get(id);
    if (!record) throw notFound('No session has this id; it may have ended.');
    if (!isAdmin(request.principal) && record.owner !== request.principal.user) {
      throw forbidden('This session belongs to someone else.');
    }
    return record;
  }

  app.route<RouteOf<'createSession'>>({
    ...contractRoute('post', '/stream'),
    // The rate limit counts invalid requests too: a loop of them costs the service work as well.
    preValidation: [requireSessions, before((request) => enforceRateLimit(limiter, request))],
    handler: async (request, reply) => {
      const { body } = request;
      checkArguments(body.arguments, ['body', 'arguments']);
      const target = resolveLaunch(catalog, body);
      const args = launchArguments(catalog, target, body.arguments);
      // Checked last, with no wait before create(): two requests of one user cannot both take the last place.
      enforceUserLimit(userLimit, manager, request);
      // Its own fields first: Node 20's V8 builds `{ ...target, owner }` on a slow path (about 2 µs alone, more
      // under load), and `{ owner, ...target }` on the fast one.
      const record = await manager.create({
        owner: request.principal.user,
        // Not held to a user's share of the GPUs (sessions/fair-share.ts).
        admin: isAdmin(request.principal),
        arguments: args,
        ...target,
      });
      // A session that failed while we waited still answers 202: its first poll gives the 410 and the reason.
      return reply.code(record.state === 'ready' ? 200 : 202).send(sessionBody(record, publicHost));
    },
  });

  app.route<RouteOf<'listSessions'>>({
    ...contractRoute('get', '/stream'),
    preValidation: requireSessions,
    handler: async (request) => {
      // Both are there: the contract's defaults fill them in.
      const { offset, limit } = request.query as Required<typeof request.query>;
      const owner = isAdmin(request.principal) ? null : request.principal.user;
      const page = manager.list(owner, offset, limit);
      return { offset, limit, count: page.count, items: page.items.map((r) => sessionBody(r, publicHost)) };
    },
  });

  app.route<RouteOf<'getSession'>>({
    ...contractRoute('get', '/stream/{session_id}'),
    preValidation: requireSessions,
    handler: async (request, reply) => {
      const record = owned(request, request.params.session_id);
      if (record.state === 'failed') throw new DomainError(410, `The session failed: ${record.message}`);
      return reply.code(record.state === 'ready' ? 200 : 202).send(sessionBody(record, publicHost));
    },
  });

  app.route<RouteOf<'deleteSession'>>({
    ...contractRoute('delete', '/stream/{session_id}'),
    preValidation: requireSessions,
    handler: async (request, reply) => {
      await manager.end(owned(request, request.params.session_id).id);
      return reply.code(204).send();
    },
  });

  app.route<RouteOf<'deleteSessionByBody'>>({
    ...contractRoute('delete', '/stream'),
    preValidation: requireSessions,
    handler: async (request, reply) => {
      await manager.end(owned(request, request.body.id).id);
      return reply.code(204).send();
    },
  });

  ticketRoutes(app, manager, requireSessions, owned);
  if (stillDir !== null) stillRoutes(app, stillDir, requireSessions, owned);
}
