/**
 * What to do with one saved session when the service starts: the decision only, read from the saved
 * record and from the processes running now; the manager carries it out.
 */
import { findSessionProcesses, isSessionProcess, startTicks } from '../runners/process-group.ts';
import type { Entry } from './session-entry.ts';

/** The outcome for one saved session. */
export type RestorePlan =
  /** Failed longer ago than the retention: not restored at all. */
  | { kind: 'forget' }
  /** Failed, still visible. */
  | { kind: 'failed' }
  /** Had no application yet: waits its turn again; a stray application of it, if any, is stopped. */
  | { kind: 'queue'; strayPid?: number }
  /** Its application still runs (the entry now holds its pid): take it over. */
  | { kind: 'adopt' }
  /** Its application is gone, or its pid now belongs to another process (never signal that one). */
  | { kind: 'lost' };

/** Decides about one saved session; may fill in the pid of an application found by its session id. */
export function planRestore(entry: Entry, now: number, failedRetentionMs: number): RestorePlan {
  const { record } = entry;
  if (record.state === 'failed') {
    return Date.parse(record.failedAt ?? '') + failedRetentionMs <= now
      ? { kind: 'forget' }
      : { kind: 'failed' };
  }
  if (record.pid === undefined) {
    // The service may have died between starting the application and saving its pid.
    const [found] = record.state === 'pending' ? findSessionProcesses(record.id) : [];
    if (found === undefined) return { kind: 'queue' };
    if (!record.ports) return { kind: 'queue', strayPid: found };
    record.pid = found;
    entry.startTicks = startTicks(found);
  }
  if (!record.ports) return { kind: 'queue' };
  return isSessionProcess(record.pid, record.id, entry.startTicks) ? { kind: 'adopt' } : { kind: 'lost' };
}
