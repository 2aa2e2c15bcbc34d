/**
 * Viewer tickets (`POST /stream/{session_id}/tickets`, CONTRACT section 14): what a viewer shows the
 * session's application to connect; and the stop of sharing (`DELETE /stream/{session_id}/tickets?scope=watch`),
 * after which the watch tickets issued so far no longer work. Who may ask is decided as for every session
 * endpoint.
 */
import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';
import { DomainError, notFound } from '../errors.ts';
import { contractRoute, type RouteOf } from '../http/contract.ts';
import type { SessionManager, SessionRecord } from '../sessions/types.ts';

/**
 * Registers the route; `requireSessions` refuses a caller who may not use sessions at all, and `owned`
 * gives the caller's session (404 unknown, 403 another's).
 */
export function ticketRoutes(
  app: FastifyInstance,
  manager: SessionManager,
  requireSessions: preValidationHookHandler,
  owned: (request: FastifyRequest, id: string) => SessionRecord,
): void {
  /**
   * The session is looked at before the body or the query: a caller who may not use it learns 403, 404 or 410
   * as from every session endpoint, not what its request gets wrong. A malformed id stays a 422 at the path.
   */
  function liveSession(request: FastifyRequest<{ Params: { session_id: string } }>): SessionRecord {
    const invalid = request.validationError;
    if (invalid?.validationContext === 'params') throw invalid;
    const record = owned(request, request.params.session_id);
    if (record.state === 'failed') throw new DomainError(410, `The session failed: ${record.message}`);
    if (invalid) throw invalid;
    return record;
  }
  /** It ended between the two looks. */
  const ended = () => notFound('No session has this id; it may have ended.');

  app.route<RouteOf<'createTicket'>>({
    ...contractRoute('post', '/stream/{session_id}/tickets'),
    preValidation: requireSessions,
    attachValidation: true,
    handler: async (request, reply) => {
      const record = liveSession(request);
      // The body may be left out: the contract's defaults fill it in.
      const { scope, ttl_s } = request.body;
      const issued = await manager.issueTicket(record.id, scope, ttl_s);
      if (!issued) throw ended();
      return reply.header('cache-control', 'no-store').code(201).send(issued);
    },
  });

  app.route<RouteOf<'stopSharing'>>({
    ...contractRoute('delete', '/stream/{session_id}/tickets'),
    preValidation: requireSessions,
    attachValidation: true,
    handler: async (request, reply) => {
      // The query names only `scope=watch`, which the contract checks.
      if (!(await manager.stopSharing(liveSession(request).id))) throw ended();
      return reply.code(204).send();
    },
  });
}
