/**
 * "12 Mar 2025, 14:05": a moment the service reported (RFC 3339), in the person's own language and time zone;
 * `timeStyle` `medium` adds the seconds. "unknown" where there is none.
 */
export function formatWhen(iso: string | undefined, timeStyle: 'short' | 'medium' = 'short'): string {
  const at = Date.parse(iso ?? '');
  if (Number.isNaN(at)) return 'unknown';
  return new Date(at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle });
}
