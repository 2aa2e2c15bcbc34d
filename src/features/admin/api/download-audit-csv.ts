import { getApiClients, unwrap } from '../../../lib/api-client';
import type { AuditQuery } from '../../../lib/api/list-audit-events';
import { saveBlob } from '../../../lib/save-blob';

/** As many events as the service gives at once: a download is for the whole of what matches. */
export const CSV_LIMIT = 10_000;

/**
 * GET /admin/audit as CSV (`Accept: text/csv`), fetched with the caller's credential like every request, then
 * saved as a file: the token stays in the request's header, never in a link.
 */
export async function downloadAuditCsv(query: AuditQuery, today = new Date()): Promise<void> {
  const { data } = await unwrap(
    getApiClients().stream.GET('/admin/audit', {
      params: { query: { ...query, limit: CSV_LIMIT } },
      headers: { Accept: 'text/csv' },
      parseAs: 'blob',
    }),
  );
  saveBlob(data, `streamgate-audit-${today.toISOString().slice(0, 10)}.csv`);
}
