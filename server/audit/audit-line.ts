/**
 * One line of the audit log: what an event becomes on disk (bounded, never a secret), and what a line read
 * back is taken for. The writer (audit-log.ts) and the reader share this shape.
 */
import type { components } from '../../api/schema.ts';
import type { AuditDetail, AuditEvent } from './audit.ts';

/** A line as written and as the API answers it. */
export type AuditLine = components['schemas']['AuditEvent'];

/** A user name longer than this is cut: no line grows without bound. */
const MAX_USER_CHARS = 256;
/** A detail's text value longer than this is cut. */
export const MAX_DETAIL_CHARS = 200;
/** Facts kept beside one event; more are dropped. */
const MAX_DETAIL_KEYS = 16;
const REDACTED = '[redacted]';

/** Keys whose values are secrets whatever they hold: such a fact is dropped, never written. */
const SECRET_KEY = /token|secret|password|passwd|authorization|credential|cookie|^ticket$/i;
/** Values that look like secrets, whatever their key: a bearer header, a JWT or viewer ticket (three parts). */
const SECRET_VALUE = [/^\s*bearer\s/i, /^[\w-]{8,}\.[\w-]{8,}\.[\w-]*$/];
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The facts that may be written: known kinds of value, no secret, each bounded. */
export function cleanDetail(detail: AuditDetail | undefined): Record<string, string | number | boolean> {
  const clean: Record<string, string | number | boolean> = {};
  let kept = 0;
  for (const [key, value] of Object.entries(detail ?? {})) {
    if (kept >= MAX_DETAIL_KEYS) break;
    if (key.length > 64 || SECRET_KEY.test(key)) continue;
    if (typeof value === 'string') {
      clean[key] = SECRET_VALUE.some((re) => re.test(value)) ? REDACTED : cut(value, MAX_DETAIL_CHARS);
    } else if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
      clean[key] = value;
    } else continue;
    kept++;
  }
  return clean;
}

/** The line of `event` at `time`. */
export function lineOf(event: AuditEvent, time: Date): AuditLine {
  return {
    time: time.toISOString(),
    user: cut(String(event.user), MAX_USER_CHARS),
    action: event.action,
    session: event.session !== undefined && SESSION_ID.test(event.session) ? event.session : null,
    detail: cleanDetail(event.detail),
  };
}

/** A line read back, or undefined for one torn or edited beyond use. */
export function parseLine(text: string): AuditLine | undefined {
  if (text === '') return undefined;
  try {
    const line = JSON.parse(text) as Partial<AuditLine> | null;
    const valid =
      typeof line?.time === 'string' &&
      typeof line.user === 'string' &&
      typeof line.action === 'string' &&
      (typeof line.session === 'string' || line.session === null) &&
      typeof line.detail === 'object' &&
      line.detail !== null;
    return valid ? (line as AuditLine) : undefined;
  } catch {
    return undefined;
  }
}

/** What a reader asks for; every filter given must hold. */
export interface AuditQuery {
  /** Events at or after this time (ms since the epoch). */
  since?: number;
  user?: string;
  action?: string;
  /** At most this many, the newest. */
  limit: number;
}

export function matches(line: AuditLine, query: AuditQuery): boolean {
  return (
    (query.user === undefined || line.user === query.user) &&
    (query.action === undefined || line.action === query.action) &&
    (query.since === undefined || Date.parse(line.time) >= query.since)
  );
}
