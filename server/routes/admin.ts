/**
 * `GET /admin/capacity` (CONTRACT §16): what holds the GPUs (people's sessions, warm applications) and
 * what waits for them. For admins only; without a tokens file every caller is one.
 */
import type { FastifyPluginAsync, preValidationHookHandler } from 'fastify';
import { isAdmin } from '../auth/tokens.ts';
import { forbidden } from '../errors.ts';
import { contractRoute } from '../http/contract.ts';
import type { SessionManager } from '../sessions/types.ts';
import type { Catalog } from '../catalog/model.ts';
import type { Door } from '../door/door.ts';
import { before } from './session-access.ts';

/** Checked before the request is: a caller who is not an admin learns nothing more, and reads `refusal`. */
export function requireAdmin(refusal: string): preValidationHookHandler {
  return before((request) => {
    if (!isAdmin(request.principal)) throw forbidden(refusal);
  });
}

export interface AdminRoutesOptions {
  manager: SessionManager;
  /** Its profiles: on a cluster, the report says whether each can run there. */
  catalog: Catalog;
  /** The door, whose figures the report carries (CONTRACT §21); absent: none. */
  door?: Door;
}

export const adminRoutes: FastifyPluginAsync<AdminRoutesOptions> = async (
  app,
  { manager, catalog, door },
) => {
  contractRoute(app, 'getCapacity', {
    preValidation: requireAdmin(
      'The capacity figures are for administrators; use a token with the admin role.',
    ),
    handler: async (_request, reply) => {
      const report = manager.capacity(catalog.profiles);
      const figures = door?.figures();
      const body = figures
        ? {
            ...report,
            door: {
              signaling: figures.signaling,
              relay: figures.relay,
              ...(figures.relayProblem ? { relay_problem: figures.relayProblem } : {}),
              relayed_viewers: figures.relayedViewers,
              relayed_flows: figures.relayedFlows,
              relay_bytes_in: figures.relayBytesIn,
              relay_bytes_out: figures.relayBytesOut,
              offers: figures.offers,
            },
          }
        : report;
      return reply.header('cache-control', 'no-store').code(200).send(body);
    },
  });
};
