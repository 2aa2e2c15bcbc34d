/**
 * The service's health as an admin reads it at a glance: one line per thing that can stop people from working,
 * each good, a warning or a problem, from the capacity report and the sessions that ended lately. Nothing here
 * asks the service more than the pages already do.
 */
import type { Capacity } from '../../../lib/api/get-capacity';
import type { Session } from '../../../lib/api-client';
import { plural } from '../../../lib/plural';

export type HealthLevel = 'ok' | 'warning' | 'problem';

export interface HealthCheck {
  name: string;
  level: HealthLevel;
  text: string;
}

/** Failures of this many launches within the last hour are a problem, fewer a warning. */
export const FAILURES_A_PROBLEM = 3;
const HOUR_MS = 60 * 60_000;

/** Whether sessions can start now: GPUs free, or how many wait for one. */
function starting(capacity: Capacity): HealthCheck {
  const name = 'Sessions can start';
  if (capacity.capacity === 0)
    return { name, level: 'problem', text: 'No GPU is there to run a session on.' };
  const free = Math.max(0, capacity.capacity - capacity.running - capacity.warm);
  if (capacity.queued > 0)
    return {
      name,
      level: 'warning',
      text: `Every GPU is in use; ${plural(capacity.queued, 'session')} waiting.`,
    };
  return { name, level: 'ok', text: `${free} of ${plural(capacity.capacity, 'GPU')} free, nobody waiting.` };
}

/** Warm applications at their target, or how many are missing (starting, or held back after failures). */
function warm(capacity: Capacity): HealthCheck | undefined {
  const rows = capacity.by_profile.filter((row) => row.warm_target > 0);
  if (rows.length === 0) return undefined;
  const short = rows.filter((row) => row.warm < row.warm_target);
  if (short.length === 0)
    return { name: 'Warm applications', level: 'ok', text: 'Every one the catalog asks for is held.' };
  // Fewer are held while people use the GPUs, which is what they are for: a warning, not a problem.
  return {
    name: 'Warm applications',
    level: 'warning',
    text: short.map((row) => `${row.profile}: ${row.warm} of ${row.warm_target}`).join('; '),
  };
}

/** A cluster's nodes, and the profiles no node that is up can run. */
function cluster(capacity: Capacity): HealthCheck[] {
  const { cluster } = capacity;
  if (!cluster) return [];
  const down = [...new Set(cluster.partitions.flatMap((partition) => partition.nodes_down))];
  const stuck = cluster.profiles.filter((profile) => !profile.runnable);
  return [
    down.length === 0
      ? { name: 'Cluster nodes', level: 'ok', text: `All ${plural(cluster.nodes.length, 'node')} up.` }
      : {
          name: 'Cluster nodes',
          level: down.length === cluster.nodes.length ? 'problem' : 'warning',
          text: `Down or drained: ${down.join(', ')}.`,
        },
    stuck.length === 0
      ? { name: 'Profiles on the cluster', level: 'ok', text: 'A node that is up can run every profile.' }
      : {
          name: 'Profiles on the cluster',
          level: 'problem',
          text: stuck.map((profile) => `${profile.profile}: ${profile.message}`).join('; '),
        },
  ];
}

/** The door's relay: a relay that was wanted and is missing leaves viewers behind strict firewalls out. */
function door(capacity: Capacity): HealthCheck | undefined {
  const { door } = capacity;
  if (!door) return undefined;
  if (door.relay_problem) return { name: 'Relay (TURN)', level: 'problem', text: door.relay_problem };
  if (door.relay === 'none')
    return {
      name: 'Relay (TURN)',
      level: 'warning',
      text: 'None: viewers whose network blocks UDP cannot watch.',
    };
  const which = door.relay === 'embedded' ? 'The embedded relay' : 'The site’s relay';
  return {
    name: 'Relay (TURN)',
    level: 'ok',
    text: `${which}, ${plural(door.relayed_flows, 'connection')} open.`,
  };
}

/** Launches that failed within the hour before `now`, from the ended sessions (newest first). */
function failures(ended: readonly Session[], now: number): HealthCheck {
  const recent = ended.filter(
    (session) =>
      session.end_cause === 'failed' &&
      session.ended_at !== undefined &&
      now - Date.parse(session.ended_at) <= HOUR_MS,
  );
  const name = 'Launches in the last hour';
  if (recent.length === 0) return { name, level: 'ok', text: 'None failed.' };
  const latest = recent[0]!;
  return {
    name,
    level: recent.length >= FAILURES_A_PROBLEM ? 'problem' : 'warning',
    text: `${plural(recent.length, 'session')} failed; the latest, ${latest.id.slice(0, 8)}: ${latest.status.message ?? 'no reason given'}`,
  };
}

/** Every check, worst first; `ended` undefined where the deployment keeps no ended sessions. */
export function healthChecks(
  capacity: Capacity,
  ended: readonly Session[] | undefined,
  now: number,
): HealthCheck[] {
  const checks = [
    starting(capacity),
    warm(capacity),
    ...cluster(capacity),
    door(capacity),
    ended && failures(ended, now),
  ].filter((check): check is HealthCheck => check !== undefined);
  const rank: Record<HealthLevel, number> = { problem: 0, warning: 1, ok: 2 };
  return checks.sort((a, b) => rank[a.level] - rank[b.level]);
}
