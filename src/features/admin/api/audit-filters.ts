/**
 * The audit page's filters as the address holds them (`?person=alice&action=launch&since=2025-01-31`, so that a
 * view of the log can be shared), and as the API asks for them.
 */
import type { AuditAction, AuditQuery } from '../../../lib/api/list-audit-events';

/** Every action, in the order the filter offers them, with words for a person. */
export const AUDIT_ACTIONS: Record<AuditAction, string> = {
  launch: 'Launch',
  'admin-try': 'Admin Try',
  end: 'End',
  'session-ended': 'Session ended by itself',
  ticket: 'Viewer ticket',
  'stop-sharing': 'Stop sharing',
  extend: 'Extend',
  'file-upload': 'File uploaded',
  'file-download': 'File downloaded',
  'file-delete': 'File deleted',
  'sign-in-failed': 'Sign-in failed',
};

export interface AuditFilters {
  /** A user name, or empty for everyone. */
  person: string;
  /** One action, or empty for all. */
  action: AuditAction | '';
  /** A day (`YYYY-MM-DD`, the date field's form), from the start of which events are shown; or empty. */
  since: string;
}

const isAction = (value: string): value is AuditAction => Object.hasOwn(AUDIT_ACTIONS, value);
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The filters in `params`; anything unknown is no filter. */
export function auditFiltersOf(params: URLSearchParams): AuditFilters {
  const action = params.get('action') ?? '';
  const since = params.get('since') ?? '';
  return {
    person: params.get('person')?.trim() ?? '',
    action: isAction(action) ? action : '',
    since: DAY.test(since) ? since : '',
  };
}

/** The filters as the address's parameters, the empty ones left out. */
export function auditParamsOf(filters: AuditFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.person) params.set('person', filters.person);
  if (filters.action) params.set('action', filters.action);
  if (filters.since) params.set('since', filters.since);
  return params;
}

/** The start of `day` in the person's own time zone, as the API's RFC 3339 time with its offset. */
function startOfDay(day: string): string | undefined {
  const parts = DAY.exec(day);
  if (!parts) return undefined;
  const local = new Date(Number(parts[1]), Number(parts[2]) - 1, Number(parts[3]));
  return Number.isNaN(local.getTime()) ? undefined : local.toISOString();
}

/** The filters as GET /admin/audit's query. */
export function auditQueryOf(filters: AuditFilters, limit?: number): AuditQuery {
  const since = startOfDay(filters.since);
  return {
    ...(filters.person ? { user: filters.person } : {}),
    ...(filters.action ? { action: filters.action } : {}),
    ...(since ? { since } : {}),
    ...(limit === undefined ? {} : { limit }),
  };
}
