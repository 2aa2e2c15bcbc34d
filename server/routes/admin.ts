/**
 * `GET /admin/capacity` (CONTRACT §16): what holds the GPUs (people's sessions, warm applications) and
 * what waits for them. For admins only; without a tokens file every caller is one.
 */
import type { FastifyPluginAsync } from 'fastify';
import { isAdmin } from '../auth/tokens.ts';
import { forbidden } from '../errors.ts';
import { contractRoute } from '../http/contract.ts';
import type { SessionManager } from '../sessions/types.ts';
import type { Catalog } from '../catalog/model.ts';

export interface AdminRoutesOptions {
  manager: SessionManager;
  /** Its profiles: on a cluster, the report says whether each can run there. */
  catalog: Catalog;
}

export const adminRoutes: FastifyPluginAsync<AdminRoutesOptions> = async (app, { manager, catalog }) => {
  contractRoute(app, 'getCapacity', {
    handler: async (request, reply) => {
      if (!isAdmin(request.principal)) {
        throw forbidden('The capacity figures are for administrators; use a token with the admin role.');
      }
      return reply.header('cache-control', 'no-store').code(200).send(manager.capacity(catalog.profiles));
    },
  });
};
