/**
 * `GET /admin/capacity` (CONTRACT §16): what holds the GPUs (people's sessions, warm applications) and
 * what waits for them. For admins only; without a tokens file every caller is one.
 */
import type { FastifyInstance } from 'fastify';
import { isAdmin } from '../auth/tokens.ts';
import { forbidden } from '../errors.ts';
import { contractRoute, type RouteOf } from '../http/contract.ts';
import type { SessionManager } from '../sessions/types.ts';

export function adminRoutes(app: FastifyInstance, manager: SessionManager): void {
  app.route<RouteOf<'getCapacity'>>({
    ...contractRoute('get', '/admin/capacity'),
    handler: async (request, reply) => {
      if (!isAdmin(request.principal)) {
        throw forbidden('The capacity figures are for administrators; use a token with the admin role.');
      }
      return reply.header('cache-control', 'no-store').code(200).send(manager.capacity());
    },
  });
}
