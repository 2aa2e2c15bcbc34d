/**
 * Streaming sessions (`/stream`): create, read, list and end. Each route takes its schemas from the
 * contract, so that its handler gets checked values; routes resolve the catalog and check who may see
 * what, and the session manager owns the processes and ports.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { NO_AUDIT, type Audit } from '../audit/audit.ts';
import { isAdmin } from '../auth/tokens.ts';
import type { Catalog } from '../catalog/model.ts';
import { launchArguments, resolveLaunch } from '../catalog/queries.ts';
import { checkArguments } from '../catalog/argument-limits.ts';
import { contractRoute } from '../http/contract.ts';
import { enforceRateLimit, type RateLimiter } from '../http/rate-limit.ts';
import { enforceUserLimit } from '../sessions/user-limit.ts';
import type { SessionManager } from '../sessions/types.ts';
import { before, ownerFilter, requireSessions, sessionAccess } from './session-access.ts';
import { launchDetail, sessionEvent } from './session-audit.ts';
import { endedBody, sessionBody } from './session-body.ts';
import { extendRoutes } from './extend.ts';
import { stillRoutes } from './still.ts';
import { ticketRoutes } from './tickets.ts';
import type { Door } from '../door/door.ts';

/** What the /stream routes use; the plugin is registered under the app's /api prefix. */
export interface StreamRoutesOptions {
  catalog: Catalog;
  manager: SessionManager;
  /** STREAMGATE_PUBLIC_HOST, the host key of a ready session's `routes`. */
  publicHost: string;
  /** The per-caller rate of POST /stream; null or absent: none. */
  limiter?: RateLimiter | null;
  /** Sessions running or queued per user (CONTRACT section 16); null or absent: no limit. */
  userLimit?: number | null;
  /** Where the applications keep their stills (sessions/still-files.ts); null or absent: no still route. */
  stillDir?: string | null;
  /** The door, whose TURN relays a ticket reply carries (CONTRACT §21); absent: none. */
  door?: Door;
  /** Where launches, ends, tickets and stops of sharing are recorded (CONTRACT §22); absent: nowhere. */
  audit?: Audit;
}

/** The /stream routes, and the tickets and stills of a session beside them. */
export const streamRoutes: FastifyPluginAsync<StreamRoutesOptions> = async (app, options) => {
  const { catalog, manager, publicHost, limiter = null, userLimit = null, stillDir = null } = options;
  const { audit = NO_AUDIT } = options;
  const access = sessionAccess(manager);

  contractRoute(app, 'createSession', {
    // The rate limit counts invalid requests too: a loop of them costs the service work as well.
    preValidation: [requireSessions, before((request) => enforceRateLimit(limiter, request))],
    handler: async (request, reply) => {
      const { body } = request;
      checkArguments(body.arguments, ['body', 'arguments']);
      const target = resolveLaunch(catalog, body);
      const args = launchArguments(catalog, target, body.arguments);
      // Checked last, with no wait before create(): two requests of one user cannot both take the last place.
      enforceUserLimit(userLimit, manager, request.principal);
      const record = await manager.create({
        ...target,
        owner: request.principal.user,
        // Not held to a user's share of the GPUs (sessions/fair-share.ts).
        admin: isAdmin(request.principal),
        arguments: args,
      });
      // An admin's Try (the admin page) is told apart from a person's launch in the audit log.
      const action = body.purpose === 'try' && isAdmin(request.principal) ? 'admin-try' : 'launch';
      audit.record(sessionEvent(request, action, record, launchDetail(record)));
      // A session that failed while we waited still answers 202: its first poll gives the 410 and the reason.
      return reply.code(record.state === 'ready' ? 200 : 202).send(sessionBody(record, publicHost));
    },
  });

  contractRoute(app, 'listSessions', {
    preValidation: requireSessions,
    handler: async (request) => {
      // The contract's defaults fill these in.
      const { offset, limit, state } = request.query as Required<typeof request.query>;
      const owner = ownerFilter(request, request.query.user);
      if (state === 'ended') {
        const page = manager.endedSessions(owner, offset, limit);
        return { offset, limit, count: page.count, items: page.items.map(endedBody) };
      }
      const page = manager.list(owner, offset, limit);
      return { offset, limit, count: page.count, items: page.items.map((r) => sessionBody(r, publicHost)) };
    },
  });

  contractRoute(app, 'getSession', {
    preValidation: requireSessions,
    handler: async (request, reply) => {
      const record = access.live(request, request.params.session_id);
      return reply.code(record.state === 'ready' ? 200 : 202).send(sessionBody(record, publicHost));
    },
  });

  /** Ends a session the caller may end, and records by whom. */
  async function end(request: FastifyRequest, id: string): Promise<void> {
    const record = access.owned(request, id);
    await manager.end(record.id, request.principal.user);
    audit.record(sessionEvent(request, 'end', record, launchDetail(record)));
  }

  contractRoute(app, 'deleteSession', {
    preValidation: requireSessions,
    handler: async (request, reply) => {
      await end(request, request.params.session_id);
      return reply.code(204).send();
    },
  });

  contractRoute(app, 'deleteSessionByBody', {
    preValidation: requireSessions,
    handler: async (request, reply) => {
      await end(request, request.body.id);
      return reply.code(204).send();
    },
  });

  await app.register(extendRoutes, { manager, access, publicHost, audit });
  await app.register(ticketRoutes, {
    manager,
    access,
    audit,
    ...(options.door ? { door: options.door } : {}),
  });
  if (stillDir !== null) await app.register(stillRoutes, { stillDir, access });
};
