/**
 * Who may use which session, decided alike for every session endpoint (CONTRACT section 10): a role that may
 * not use sessions is refused before its request is even checked, and another user's session is a 403, never
 * its data.
 */
import type { FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import { canUseSessions, isAdmin } from '../auth/tokens.ts';
import { DomainError, forbidden, notFound } from '../errors.ts';
import type { SessionManager, SessionRecord } from '../sessions/types.ts';

/** A check that throws, as a hook before validation: what it throws is the answer. */
export function before(check: (request: FastifyRequest) => void): preValidationAsyncHookHandler {
  return async (request) => check(request);
}

/** A 403 for a caller whose role may not use sessions. */
export function mayUseSessions(request: FastifyRequest): void {
  if (!canUseSessions(request.principal)) {
    throw forbidden(
      'Your role may read the catalog but not use sessions; ask an administrator for the user role.',
    );
  }
}

/** Checked before the request is: a role that may not use sessions learns nothing more (FastAPI's order). */
export const requireSessions = before(mayUseSessions);

/**
 * Whose sessions a list shows: an admin's, everyone's or the person named in `user`; anyone else's, their own,
 * and naming another person is a 403.
 */
export function ownerFilter(request: FastifyRequest, user: string | undefined): string | null {
  if (isAdmin(request.principal)) return user ?? null;
  if (user !== undefined && user !== request.principal.user) {
    throw forbidden("Only administrators may list other people's sessions.");
  }
  return request.principal.user;
}

/**
 * The caller's live session of a route that takes a body or a query (`attachValidation`), looked at before
 * them: a caller who may not use it learns 403, 404 or 410 as from every session endpoint, not what its
 * request gets wrong. A malformed id stays a 422 at the path.
 */
export function liveBeforeRequest(
  access: SessionAccess,
  request: FastifyRequest<{ Params: { session_id: string } }>,
): SessionRecord {
  const invalid = request.validationError;
  if (invalid?.validationContext === 'params') throw invalid;
  const record = access.live(request, request.params.session_id);
  if (invalid) throw invalid;
  return record;
}

/** The sessions of `manager` as the caller may see them. */
export interface SessionAccess {
  /** The session if the caller may see it: 404 when unknown, 403 when it is someone else's. */
  owned(request: FastifyRequest, id: string): SessionRecord;
  /** The same, and 410 with the reason when it failed. */
  live(request: FastifyRequest, id: string): SessionRecord;
}

export function sessionAccess(manager: SessionManager): SessionAccess {
  function owned(request: FastifyRequest, id: string): SessionRecord {
    const record = manager.get(id);
    if (!record) throw notFound('No session has this id; it may have ended.');
    if (!isAdmin(request.principal) && record.owner !== request.principal.user) {
      throw forbidden('This session belongs to someone else.');
    }
    return record;
  }
  function live(request: FastifyRequest, id: string): SessionRecord {
    const record = owned(request, id);
    if (record.state === 'failed') throw new DomainError(410, `The session failed: ${record.message}`);
    return record;
  }
  return { owned, live };
}
