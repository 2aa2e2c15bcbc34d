/**
 * Extending a session (`POST /stream/{session_id}/extend`): a ready session runs longer, up to its profile's
 * maximum lifetime (sessions/lifetime.ts). Who may ask is decided as for every session endpoint: its owner or
 * an admin.
 */
import type { FastifyPluginAsync } from 'fastify';
import { NO_AUDIT, type Audit } from '../audit/audit.ts';
import { notFound, ValidationFailure } from '../errors.ts';
import { contractRoute } from '../http/contract.ts';
import type { SessionManager } from '../sessions/types.ts';
import { liveBeforeRequest, requireSessions, type SessionAccess } from './session-access.ts';
import { sessionEvent } from './session-audit.ts';
import { sessionBody } from './session-body.ts';

export interface ExtendRoutesOptions {
  manager: SessionManager;
  /** The caller's session, as every session endpoint finds it. */
  access: SessionAccess;
  /** STREAMGATE_PUBLIC_HOST, the host key of a ready session's `routes`. */
  publicHost: string;
  /** Where extensions are recorded; absent: nowhere. */
  audit?: Audit;
}

export const extendRoutes: FastifyPluginAsync<ExtendRoutesOptions> = async (
  app,
  { manager, access, publicHost, audit = NO_AUDIT },
) => {
  contractRoute(app, 'extendSession', {
    preValidation: requireSessions,
    attachValidation: true,
    handler: async (request) => {
      const record = liveBeforeRequest(access, request);
      // The body may be left out: the contract's default fills it in.
      const { minutes } = request.body;
      const extended = await manager.extend(record.id, minutes);
      if (!extended) throw notFound('No session has this id; it may have ended.');
      if ('refused' in extended)
        throw new ValidationFailure([
          { loc: ['body', 'minutes'], msg: extended.refused, type: 'value_error' },
        ]);
      audit.record(sessionEvent(request, 'extend', record, { minutes, ends_at: extended.endsAt }));
      return sessionBody(extended, publicHost);
    },
  });
};
