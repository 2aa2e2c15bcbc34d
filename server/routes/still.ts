/**
 * A session's recent still (`GET /stream/{session_id}/still`): the small JPEG its application keeps in
 * the file the service named (sessions/still-files.ts). Who may ask is decided as for every session endpoint.
 */
import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';
import { DomainError, notFound } from '../errors.ts';
import { contractRoute, type RouteOf } from '../http/contract.ts';
import { readStill } from '../sessions/still-files.ts';
import type { SessionRecord } from '../sessions/types.ts';

/**
 * Registers the route; `requireSessions` refuses a caller who may not use sessions at all, and `owned`
 * gives the caller's session (404 unknown, 403 another's).
 */
export function stillRoutes(
  app: FastifyInstance,
  stillDir: string,
  requireSessions: preValidationHookHandler,
  owned: (request: FastifyRequest, id: string) => SessionRecord,
): void {
  // The answer is a picture, not JSON: only the parameters' type comes from the contract.
  app.route<{ Params: RouteOf<'getSessionStill'>['Params'] }>({
    ...contractRoute('get', '/stream/{session_id}/still'),
    preValidation: requireSessions,
    handler: async (request, reply) => {
      const record = owned(request, request.params.session_id);
      if (record.state === 'failed') throw new DomainError(410, `The session failed: ${record.message}`);
      const still = await readStill(stillDir, record.id);
      if (!still) throw notFound('This session has no still yet.');
      // no-store: the picture changes every few seconds, and is the owner's only.
      return reply.header('cache-control', 'no-store').type('image/jpeg').send(still);
    },
  });
}
