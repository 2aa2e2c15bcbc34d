import type { Profile } from '../../../lib/api-client';
import { getApps } from '../../../lib/api/get-apps';
import { getProfiles } from '../../../lib/api/get-profiles';
import { getVersions } from '../../../lib/api/get-versions';
import { describeError } from '../../../lib/error-text';
import { mapLimit } from '../../../lib/limit';

/** One application version and the ids of the profiles that apply to it. */
export interface AvailabilityRow {
  app: string;
  appName: string;
  version: string;
  /** Ids of the profiles that apply (the version's own profile list). */
  applies: string[];
  /** Why the version's profile list could not be read; `applies` is then empty. */
  error?: string;
}

/** Every profile (the columns) and every application version (the rows). */
export interface Availability {
  profiles: Profile[];
  rows: AvailabilityRow[];
}

/** Requests in flight at once, to spare the service. */
export const CONCURRENCY = 6;

/**
 * Which profiles apply to which application versions, from lists only: every profile
 * (`/cfg/apps/*\/versions/*\/profiles`), every application's versions, and each version's profiles. Each of
 * these answers 200 for what the catalog lists (an empty list where none apply), so no request fails the way
 * asking for each (version, profile) pair did, with a 404 for every pair that does not apply.
 * Rows come by application name, then newest version first.
 */
export async function getAvailability(signal?: AbortSignal): Promise<Availability> {
  const [apps, everyProfile] = await Promise.all([
    getApps([], signal),
    // A deployment without the wildcard still has each version's own list, which names its profiles.
    getProfiles('*', '*', signal).catch((error: unknown) => {
      if (signal?.aborted) throw error;
      return [] as Profile[];
    }),
  ]);
  const known = new Map(everyProfile.map((p) => [p.id, p]));
  const byName = [...apps.items].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  const pairs = (
    await mapLimit(byName, CONCURRENCY, async (app) =>
      (await getVersions(app.id, signal)).map((v) => ({ app, version: v.version })),
    )
  ).flat();
  const rows = await mapLimit(pairs, CONCURRENCY, async ({ app, version }): Promise<AvailabilityRow> => {
    const row = { app: app.id, appName: app.name, version };
    try {
      const listed = await getProfiles(app.id, version, signal);
      for (const p of listed) if (!known.has(p.id)) known.set(p.id, p);
      return { ...row, applies: listed.map((p) => p.id) };
    } catch (error) {
      if (signal?.aborted) throw error;
      return { ...row, applies: [], error: describeError(error, `${app.name} ${version}`) };
    }
  });
  const profiles = [...known.values()].sort(
    (a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
  );
  return { profiles, rows };
}
