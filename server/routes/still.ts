/**
 * A session's recent still (`GET /stream/{session_id}/still`): the small picture (PNG, or JPEG) its application
 * keeps in the file the service named (runners/still-files.ts). Who may ask is decided as for every session endpoint.
 */
import type { FastifyPluginAsync } from 'fastify';
import { notFound } from '../errors.ts';
import { contractRoute } from '../http/contract.ts';
import { readStill, stillType } from '../runners/still-files.ts';
import { requireSessions, type SessionAccess } from './session-access.ts';

export interface StillRoutesOptions {
  /** Where the applications keep their stills. */
  stillDir: string;
  /** The caller's session, as every session endpoint finds it. */
  access: SessionAccess;
}

export const stillRoutes: FastifyPluginAsync<StillRoutesOptions> = async (app, { stillDir, access }) => {
  // The answer is a picture: the contract gives it no JSON schema, only its errors.
  contractRoute(app, 'getSessionStill', {
    preValidation: requireSessions,
    handler: async (request, reply) => {
      const record = access.live(request, request.params.session_id);
      const still = await readStill(stillDir, record.id);
      if (!still) throw notFound('This session has no still yet.');
      // no-store: the picture changes every few seconds, and is the owner's only.
      return reply.header('cache-control', 'no-store').type(stillType(still)).code(200).send(still);
    },
  });
};
