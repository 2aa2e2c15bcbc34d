/** Counts over the sessions: by state for /metrics, and the capacity report of GET /admin/capacity (CONTRACT §16). */
import type { Session } from './session.ts';
import type { CapacityReport, SessionCounts } from './types.ts';
import type { WarmProfileCounts } from './warm-pool.ts';

type ProfileRow = CapacityReport['by_profile'][number];

/**
 * Counts people's sessions and warm applications that hold a GPU (starting, ready or ending) and the
 * queue, in all and per profile. Profiles that keep applications warm come first, in catalog order.
 */
export function capacityReport(
  capacity: number,
  sessions: Iterable<Session>,
  queue: readonly Session[],
  warm: readonly WarmProfileCounts[],
): CapacityReport {
  const rows = new Map<string, ProfileRow>();
  const row = (profile: string): ProfileRow => {
    let entry = rows.get(profile);
    if (!entry) rows.set(profile, (entry = { profile, running: 0, queued: 0, warm: 0, warm_target: 0 }));
    return entry;
  };
  for (const counts of warm)
    Object.assign(row(counts.profile), { warm: counts.warm, warm_target: counts.target });
  const report: CapacityReport = { capacity, running: 0, warm: 0, queued: queue.length, by_profile: [] };
  for (const session of sessions) {
    if (!session.holdsGpu) continue;
    if (session.warm) report.warm++;
    else {
      report.running++;
      row(session.request.profile.id).running++;
    }
  }
  for (const session of queue) row(session.request.profile.id).queued++;
  report.by_profile = [...rows.values()];
  return report;
}

/** Sessions by the state callers see, warm applications apart, and the queue's length. */
export function sessionCounts(sessions: Iterable<Session>, queued: number): SessionCounts {
  const counts: SessionCounts = { pending: 0, ready: 0, failed: 0, queued, warm: 0 };
  for (const session of sessions) {
    if (session.warm) counts.warm++;
    else counts[session.record.state]++;
  }
  return counts;
}
