/**
 * `GET /admin/audit` (CONTRACT §22): the audit log, newest first, filtered by time, person and action; as JSON,
 * or as CSV for a download when the caller's `Accept` asks for `text/csv`. For admins only.
 */
import type { FastifyPluginAsync } from 'fastify';
import { acceptsCsv, auditCsv } from '../audit/audit-csv.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import { ValidationFailure } from '../errors.ts';
import { contractRoute } from '../http/contract.ts';
import { requireAdmin } from './admin.ts';

export interface AuditRoutesOptions {
  audit: AuditLog;
}

/**
 * `since` as ms since the epoch. The contract checks its form (a date, or a date and time with its offset: one
 * without would be the machine's time); a 422 at the parameter for a form that names no time (month 13).
 */
function sinceOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  if (!Number.isNaN(ms)) return ms;
  throw new ValidationFailure([
    {
      loc: ['query', 'since'],
      msg: 'Input should be a valid datetime, as 2025-01-31T09:00:00Z or 2025-01-31',
      type: 'datetime_parsing',
    },
  ]);
}

export const auditRoutes: FastifyPluginAsync<AuditRoutesOptions> = async (app, { audit }) => {
  contractRoute(app, 'listAuditEvents', {
    preValidation: requireAdmin('The audit log is for administrators; use a token with the admin role.'),
    handler: async (request, reply) => {
      const { user, action } = request.query;
      const since = sinceOf(request.query.since);
      // The contract's default fills it in.
      const limit = request.query.limit ?? 500;
      const page = await audit.read({
        limit,
        ...(since === undefined ? {} : { since }),
        ...(user === undefined ? {} : { user }),
        ...(action === undefined ? {} : { action }),
      });
      reply.header('cache-control', 'no-store').header('vary', 'Accept');
      if (acceptsCsv(request.headers.accept)) {
        // The reply's type is the contract's JSON answer; the CSV answer of the same status is text.
        const csv = auditCsv(page.items) as never;
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="streamgate-audit.csv"')
          .code(200)
          .send(csv);
      }
      return reply.code(200).send({ count: page.items.length, truncated: page.truncated, items: page.items });
    },
  });
};
