/**
 * Restoring saved sessions when the service starts: what to do with each one (the decision, read from
 * the saved record and from the processes running now), and carrying it out over the manager's
 * bookkeeping, which this reaches through a small context.
 */
import { findSessionProcesses, isSessionProcess, startTicks } from '../runners/process-group.ts';
import { probeHealth } from './health-probe.ts';
import { isPersistedSession, label, type Entry, type PersistedSession } from './session-entry.ts';
import type { RuntimeContext, SessionRuntime } from './session-runtime.ts';
import type { LoadResult } from './state-store.ts';

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

/** What carrying out a restore needs: part of what the runtime gets, the manager's books, its watcher. */
export interface RestoreContext
  extends
    Pick<RuntimeContext, 'publicHost' | 'pool' | 'logger' | 'fail' | 'markReady' | 'stopLater'>,
    Pick<SessionRuntime, 'watchReadiness'> {
  failedRetentionMs: number;
  entries: Map<string, Entry>;
  queue: Entry[];
  /** Removes a failed session once its retention has passed. */
  forgetLater(entry: Entry): void;
}

/** What restoring the saved sessions leaves for the manager. */
export interface Restored {
  /** The highest sequence number seen, forgotten sessions included: new sessions count on from it. */
  lastSeq: number;
  /** Adopted applications that were still starting, for {@link probeAdoptedStarting}. */
  adoptedStarting: Entry[];
}

/**
 * Rebuilds the sessions the store loaded, in the order they were created; one that cannot be restored
 * is logged and dropped. The caller keeps the queue from starting anything meanwhile: adopted sessions
 * must hold their GPUs first.
 */
export function restoreSessions(loaded: LoadResult<PersistedSession>, context: RestoreContext): Restored {
  const { logger } = context;
  for (const problem of loaded.problems) logger.error({ problem }, 'Damaged session state set aside');
  if (loaded.source === 'backup') logger.warn({}, 'Session state recovered from its backup copy');
  const restored: Restored = { lastSeq: 0, adoptedStarting: [] };
  for (const session of [...loaded.sessions].sort((a, b) => a.seq - b.seq)) {
    try {
      restoreOne(session, restored, context);
    } catch (error) {
      logger.error({ err: (error as Error).message }, 'A saved session could not be restored; it is dropped');
    }
  }
  return restored;
}

/** Rebuilds one session from disk: adopts its application, marks it failed, or queues it again. */
function restoreOne(saved: PersistedSession, restored: Restored, context: RestoreContext): void {
  if (!isPersistedSession(saved)) throw new Error('malformed session in the state file');
  const entry: Entry = { ...saved, phase: 'queued', adopted: false, probing: false };
  const { record, request } = entry;
  restored.lastSeq = Math.max(restored.lastSeq, entry.seq);
  const plan = planRestore(entry, Date.now(), context.failedRetentionMs);
  if (plan.kind === 'forget') return;
  context.entries.set(record.id, entry);
  if (plan.kind === 'failed') {
    entry.phase = 'failed';
    return context.forgetLater(entry);
  }
  if (plan.kind === 'queue') {
    if (plan.strayPid !== undefined) context.stopLater(plan.strayPid);
    delete record.ports;
    delete record.pid;
    record.state = 'pending';
    return void context.queue.push(entry);
  }
  entry.phase = record.state === 'ready' ? 'ready' : 'starting';
  if (plan.kind === 'lost') {
    delete record.pid;
    return context.fail(entry, `${label(request)} stopped while the service was down`);
  }
  entry.adopted = true;
  if (!record.ports || !context.pool.claim(record.ports)) {
    // Only a damaged state file gives two sessions one port; the application is ours, so it is stopped.
    return context.fail(entry, `${label(request)} could not keep its network ports after a restart`);
  }
  entry.idleSince = Date.now();
  context.logger.info({ sessionId: record.id, pid: record.pid }, `Adopted ${label(request)}`);
  if (entry.phase === 'starting') restored.adoptedStarting.push(entry);
}

/**
 * Probes each adopted application that was still starting once (start() waits for this), so that one
 * which became ready while the service was down is reported ready at once; the others go on being watched.
 */
export async function probeAdoptedStarting(
  starting: readonly Entry[],
  context: RestoreContext,
): Promise<void> {
  await Promise.all(
    starting.map(async (entry) => {
      const health = await probeHealth(context.publicHost, entry.record.ports!.signaling, 1_000);
      if (health.ok && entry.phase === 'starting') context.markReady(entry);
      else void context.watchReadiness(entry);
    }),
  );
}
