import type { components, operations } from '../../../api/schema';
import { ApiError, getApiClients, isApiError, unwrap } from '../api-client';

export type AuditEvent = components['schemas']['AuditEvent'];
export type AuditAction = components['schemas']['AuditAction'];
export type AuditLog = components['schemas']['AuditLog'];
/** The filters of GET /admin/audit; they add up. `since`: RFC 3339 with its offset, or a date. */
export type AuditQuery = NonNullable<operations['listAuditEvents']['parameters']['query']>;

/** GET /admin/audit (CONTRACT §22, admins only), on the stream base: the newest events that match, newest first. */
export async function listAuditEvents(query: AuditQuery, signal?: AbortSignal): Promise<AuditLog> {
  const { data } = await unwrap(getApiClients().stream.GET('/admin/audit', { params: { query }, signal }));
  // The same answer comes as CSV to those who ask for it; this request asks for JSON (the client's default).
  if (typeof data === 'string') throw new ApiError(502, 'The service sent the audit log as text, not JSON.');
  return data;
}

/**
 * Whether the caller may read the audit log, which is whether the service takes them for an admin. False when
 * it refuses (403) and where the deployment has no audit log (404, 405); other failures reject.
 */
export async function readsAuditLog(signal?: AbortSignal): Promise<boolean> {
  try {
    await listAuditEvents({ limit: 1 }, signal);
    return true;
  } catch (error) {
    if (isApiError(error) && [401, 403, 404, 405].includes(error.status)) return false;
    throw error;
  }
}
