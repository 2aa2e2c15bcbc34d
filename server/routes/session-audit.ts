/**
 * The audit events of what people do to sessions through the API (CONTRACT §22). Who acted is the caller; a
 * session that is someone else's (an admin acting on it) names its owner too, so that admin actions stand out.
 */
import type { FastifyRequest } from 'fastify';
import type { AuditAction, AuditDetail, AuditEvent } from '../audit/audit.ts';
import type { SessionRecord } from '../sessions/types.ts';

export function sessionEvent(
  request: FastifyRequest,
  action: AuditAction,
  record: SessionRecord,
  detail: AuditDetail = {},
): AuditEvent {
  const user = request.principal.user;
  const theirs = record.owner === user ? {} : { owner: record.owner, as_admin: true };
  return { user, action, session: record.id, detail: { ...theirs, ...detail } };
}

/** What a session runs, for the events where that matters (launch, end). */
export function launchDetail(record: SessionRecord): AuditDetail {
  return { app: record.appId, version: record.version, profile: record.profileId, state: record.state };
}
