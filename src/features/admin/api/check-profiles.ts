import { ApiError, type Profile } from '../../../lib/api-client';
import { mapLimit } from '../../../lib/limit';
import { getApps } from '../../../lib/api/get-apps';
import { getProfile } from '../../../lib/api/get-profile';
import { getProfiles } from '../../../lib/api/get-profiles';
import { getVersions } from '../../../lib/api/get-versions';

/** How one profile resolved for one application version. */
export type CellStatus = 'ok' | '403' | '404' | '422' | 'error';

/** One checked (application, version, profile). */
export interface ProfileCell {
  profile: string;
  status: CellStatus;
  /** Why it did not resolve (or "listed" / "not listed" for an ok one). */
  reason: string;
}

/** One application version and every profile checked against it. */
export interface ProfileRow {
  app: string;
  appName: string;
  version: string;
  cells: ProfileCell[];
  /** A failure of the version's profile list itself. */
  error?: string;
}

/** The result of a full check. */
export interface ProfileReport {
  profiles: Profile[];
  rows: ProfileRow[];
  checkedAt: number;
}

/**
 * Called as profile checks finish: how many are done and how many there are in all. The first call comes
 * once the total is known (with `checked` 0); it may come for every check, so a caller that renders
 * should throttle.
 */
export type CheckProgressListener = (checked: number, total: number) => void;

/** Requests in flight at once, to spare the service. */
export const CONCURRENCY = 6;

function statusOf(error: unknown): { status: CellStatus; reason: string } {
  if (error instanceof ApiError && [403, 404, 422].includes(error.status)) {
    return { status: String(error.status) as CellStatus, reason: error.message };
  }
  return { status: 'error', reason: error instanceof Error ? error.message : String(error) };
}

/**
 * For every application and version, lists its profiles, then asks for every known profile
 * (from `/cfg/apps/*\/versions/*\/profiles` and the lists) so wildcard attachments are checked too.
 * `onProgress` follows the profile checks, which are nearly all of the requests.
 */
export async function checkProfiles(
  signal?: AbortSignal,
  onProgress?: CheckProgressListener,
): Promise<ProfileReport> {
  const apps = (await getApps([], signal)).items;
  const everyProfile = await getProfiles('*', '*', signal).catch(() => [] as Profile[]);
  const pairs = (
    await mapLimit(apps, CONCURRENCY, async (app) => {
      const versions = await getVersions(app.id, signal).catch(() => []);
      return versions.map((v) => ({ app, version: v.version }));
    })
  ).flat();
  const listed = await mapLimit(pairs, CONCURRENCY, async ({ app, version }) => {
    try {
      return { ids: (await getProfiles(app.id, version, signal)).map((p) => p.id), error: undefined };
    } catch (error) {
      return { ids: [] as string[], error: statusOf(error).reason };
    }
  });
  const known = new Map(everyProfile.map((p) => [p.id, p]));
  for (const l of listed)
    for (const id of l.ids) if (!known.has(id)) known.set(id, { id, name: id, description: '' });
  const profiles = [...known.values()].sort((a, b) => a.id.localeCompare(b.id));

  const tasks = pairs.flatMap((pair, row) => profiles.map((p) => ({ row, pair, profile: p.id })));
  let checked = 0;
  onProgress?.(checked, tasks.length);
  const cells = await mapLimit(tasks, CONCURRENCY, async ({ pair, profile }): Promise<ProfileCell> => {
    try {
      await getProfile(pair.app.id, pair.version, profile, signal);
      return { profile, status: 'ok', reason: 'resolves' };
    } catch (error) {
      return { profile, ...statusOf(error) };
    } finally {
      // Once cancelled, the remaining checks fail at once; counting them would run the bar to the end.
      if (!signal?.aborted) onProgress?.(++checked, tasks.length);
    }
  });
  const rows: ProfileRow[] = pairs.map(({ app, version }, i) => ({
    app: app.id,
    appName: app.name,
    version,
    cells: [],
    ...(listed[i]?.error ? { error: listed[i].error } : {}),
  }));
  tasks.forEach((t, i) => rows[t.row]?.cells.push(cells[i] as ProfileCell));
  return { profiles, rows, checkedAt: Date.now() };
}

/** The report as CSV (one line per application, version and profile). */
export function toCsv(report: ProfileReport): string {
  const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  const lines = ['application,version,profile,status,reason'];
  for (const row of report.rows) {
    for (const c of row.cells)
      lines.push([row.app, row.version, c.profile, c.status, c.reason].map(quote).join(','));
  }
  return `${lines.join('\n')}\n`;
}
