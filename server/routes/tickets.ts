/**
 * Viewer tickets (`POST /stream/{session_id}/tickets`, CONTRACT section 14): what a viewer shows the
 * session's application to connect; and the stop of sharing (`DELETE /stream/{session_id}/tickets?scope=watch`),
 * after which the watch tickets issued so far no longer work. Who may ask is decided as for every session
 * endpoint.
 */
import type { FastifyPluginAsync } from 'fastify';
import { NO_AUDIT, type Audit } from '../audit/audit.ts';
import { notFound } from '../errors.ts';
import { contractRoute } from '../http/contract.ts';
import type { SessionManager } from '../sessions/types.ts';
import { liveBeforeRequest, requireSessions, type SessionAccess } from './session-access.ts';
import { sessionEvent } from './session-audit.ts';
import type { Door } from '../door/door.ts';

export interface TicketRoutesOptions {
  manager: SessionManager;
  /** The caller's session, as every session endpoint finds it. */
  access: SessionAccess;
  /** Mints the TURN relays a ticket's viewer may use (CONTRACT §21); absent: none. */
  door?: Door;
  /** Where tickets (their scope, never their value) and stops of sharing are recorded; absent: nowhere. */
  audit?: Audit;
}

export const ticketRoutes: FastifyPluginAsync<TicketRoutesOptions> = async (
  app,
  { manager, access, door, audit = NO_AUDIT },
) => {
  /** It ended between the two looks. */
  const ended = () => notFound('No session has this id; it may have ended.');

  contractRoute(app, 'createTicket', {
    preValidation: requireSessions,
    attachValidation: true,
    handler: async (request, reply) => {
      const record = liveBeforeRequest(access, request);
      // The body may be left out: the contract's defaults fill it in.
      const { scope, ttl_s } = request.body;
      // A control ticket names the person who asked for it, for the others in the session (protocol/people.ts).
      const issued = await manager.issueTicket(record.id, scope, ttl_s, request.principal.user);
      if (!issued) throw ended();
      audit.record(
        sessionEvent(request, 'ticket', record, { scope: issued.scope, expires_at: issued.expires_at }),
      );
      // Relays named by the host this request reached, so that a viewer that has them before its offer
      // gathers relay candidates at once.
      const servers = door?.iceServers(record.id, request.headers.host) ?? [];
      const body = servers.length > 0 ? { ...issued, ice_servers: servers } : issued;
      return reply.header('cache-control', 'no-store').code(201).send(body);
    },
  });

  contractRoute(app, 'stopSharing', {
    preValidation: requireSessions,
    attachValidation: true,
    handler: async (request, reply) => {
      // The query names only `scope=watch`, which the contract checks.
      const record = liveBeforeRequest(access, request);
      const stopped = await manager.stopSharing(record.id);
      if (!stopped) throw ended();
      audit.record(
        sessionEvent(request, 'stop-sharing', record, { watchers_dropped: stopped.watchersDropped }),
      );
      return reply.code(204).send();
    },
  });
};
