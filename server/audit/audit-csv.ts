/**
 * The audit log as CSV (RFC 4180) for a spreadsheet: `time,user,action,session,detail`, the detail as JSON.
 * A cell that a spreadsheet would take for a formula (`=`, `+`, `-`, `@`, a tab or a carriage return first)
 * is given a leading apostrophe, so that opening the file never runs what a user name or detail holds.
 */
import type { AuditLine } from './audit-line.ts';

const COLUMNS = ['time', 'user', 'action', 'session', 'detail'] as const;

function cell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function auditCsv(lines: readonly AuditLine[]): string {
  const rows = lines.map((line) =>
    [line.time, line.user, line.action, line.session ?? '', JSON.stringify(line.detail)].map(cell).join(','),
  );
  return `${[COLUMNS.join(','), ...rows].join('\r\n')}\r\n`;
}

/**
 * Whether the `Accept` header prefers CSV to JSON: `text/csv` named with a weight above zero and not below
 * that of `application/json` (absent: none). Wildcards ask for JSON, the default.
 */
export function acceptsCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const weight = { 'text/csv': 0, 'application/json': 0 };
  for (const range of accept.split(',')) {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    if (!(type in weight)) continue;
    const q = parameters.find((p) => p.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    weight[type as keyof typeof weight] = Number.isFinite(value) ? value : 0;
  }
  return weight['text/csv'] > 0 && weight['text/csv'] >= weight['application/json'];
}
