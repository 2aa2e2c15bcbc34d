/**
 * What other parts of the service tell the audit log (CONTRACT §22): one event per thing a person did or that
 * happened to their session. Only types live here, so that routes, the auth hook and the session layer can
 * import them without importing the log's files (audit-log.ts), and without a cycle.
 */
import type { components } from '../../api/schema.ts';

/** The actions the log knows, as the contract names them (`AuditAction` in api/openapi.yaml). */
export type AuditAction = components['schemas']['AuditAction'];

/** Short facts beside an event: application, version, profile, scope, cause, owner ... never a secret. */
export type AuditDetail = Record<string, string | number | boolean | undefined>;

/** One thing that happened. */
export interface AuditEvent {
  /** Who did it: the caller; for `session-ended`, the session's owner; for `sign-in-failed`, whom it claimed. */
  user: string;
  action: AuditAction;
  /** The session concerned, if any. */
  session?: string;
  detail?: AuditDetail;
}

/** Where events go. `record` never blocks and never throws: the line is written a moment later. */
export interface Audit {
  record(event: AuditEvent): void;
}

/** An audit that keeps nothing, for parts built without one. */
export const NO_AUDIT: Audit = { record: () => {} };
