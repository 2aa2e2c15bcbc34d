/**
 * Streaming sessions (`/stream`): create, read, list and end. Each route takes its schemas from the
 * contract, so that its handler gets checked values; routes resolve the catalog and check who may see
 * what, and the session manager owns the processes and ports.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { components } from '../../api/schema.ts';
import { isAdmin } from '../auth/tokens.ts';
import type { Catalog } from '../catalog/model.ts';
import { launchArguments, resolveLaunch } from '../catalog/queries.ts';
import { checkArguments } from '../http/argument-limits.ts';
import { contractRoute } from '../http/contract.ts';
import { enforceRateLimit, type RateLimiter } from '../http/rate-limit.ts';
import { enforceUserLimit } from '../http/user-limit.ts';
import type { SessionManager, SessionRecord } from '../sessions/types.ts';
import { before, requireSessions, sessionAccess } from './session-access.ts';
import { stillRoutes } from './still.ts';
import { ticketRoutes } from './tickets.ts';
import type { Door } from '../door/door.ts';

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
      // A session a runner placed on another machine (a Slurm node) is reached there.
      [record.host ?? publicHost]: [
        { description: 'signaling', protocol: 'TCP', source_port: signaling, destination_port: signaling },
        { description: 'media', protocol: 'UDP', source_port: media, destination_port: media },
      ],
    };
  }
  return body;
}

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
}

/** The /stream routes, and the tickets and stills of a session beside them. */
export const streamRoutes: FastifyPluginAsync<StreamRoutesOptions> = async (app, options) => {
  const { catalog, manager, publicHost, limiter = null, userLimit = null, stillDir = null } = options;
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

  contractRoute(app, 'listSessions', {
    preValidation: requireSessions,
    handler: async (request) => {
      // Both are there: the contract's defaults fill them in.
      const { offset, limit } = request.query as Required<typeof request.query>;
      const owner = isAdmin(request.principal) ? null : request.principal.user;
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

  contractRoute(app, 'deleteSession', {
    preValidation: requireSessions,
    handler: async (request, reply) => {
      await manager.end(access.owned(request, request.params.session_id).id);
      return reply.code(204).send();
    },
  });

  contractRoute(app, 'deleteSessionByBody', {
    preValidation: requireSessions,
    handler: async (request, reply) => {
      await manager.end(access.owned(request, request.body.id).id);
      return reply.code(204).send();
    },
  });

  await app.register(ticketRoutes, { manager, access, ...(options.door ? { door: options.door } : {}) });
  if (stillDir !== null) await app.register(stillRoutes, { stillDir, access });
};
