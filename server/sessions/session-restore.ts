/**
 * Restoring saved sessions when the service starts: what to do with each one (the decision, read from
 * the saved record and from the processes running now), replayed into the session's own transitions.
 */
import { findSessionProcesses, isSessionProcess, startTicks } from '../runners/process-group.ts';
import { probeHealth } from './health-probe.ts';
import type { PortPool } from './port-pool.ts';
import { isPersistedSession, type PersistedSession } from './saved-session.ts';
import type { Session } from './session.ts';
import { label } from './session-messages.ts';
import type { SessionRuntime } from './session-runtime.ts';
import type { LoadResult } from './state-store.ts';
import type { SessionLogger } from './types.ts';

/** The outcome for one saved session. */
export type RestorePlan =
  /** Failed longer ago than the retention: not restored at all. */
  | { kind: 'forget' }
  /** Failed, still visible. */
  | { kind: 'failed' }
  /** Had no application yet: waits its turn again; a stray application of it, if any, is stopped. */
  | { kind: 'queue'; strayPid?: number }
  /** Its application still runs as `pid` (found by its session id when the record lacked it): take it over. */
  | { kind: 'adopt'; pid: number; startTicks: string | undefined }
  /** Its application is gone, or its pid now belongs to another process (never signal that one). */
  | { kind: 'lost' };

/** Decides about one saved session from its record and the processes running now. */
export function planRestore(session: PersistedSession, now: number, failedRetentionMs: number): RestorePlan {
  const { record } = session;
  if (record.state === 'failed') {
    return Date.parse(record.failedAt ?? '') + failedRetentionMs <= now
      ? { kind: 'forget' }
      : { kind: 'failed' };
  }
  let pid = record.pid;
  let ticks = session.startTicks;
  if (pid === undefined) {
    // The service may have died between starting the application and saving its pid.
    const [found] = record.state === 'pending' ? findSessionProcesses(record.id) : [];
    if (found === undefined) return { kind: 'queue' };
    if (!record.ports) return { kind: 'queue', strayPid: found };
    pid = found;
    ticks = startTicks(found);
  }
  if (!record.ports) return { kind: 'queue' };
  return isSessionProcess(pid, record.id, ticks)
    ? { kind: 'adopt', pid, startTicks: ticks }
    : { kind: 'lost' };
}

/** What carrying out a restore needs from the manager and the runner. */
export interface RestoreContext extends Pick<SessionRuntime, 'watchReadiness'> {
  publicHost: string;
  pool: PortPool;
  logger: SessionLogger;
  failedRetentionMs: number;
  /** A session of the manager's, from what was saved. */
  revive(saved: PersistedSession): Session;
  /** Holds a restored session (a failed one until its retention is over); before any of its transitions. */
  hold(session: Session): void;
  /** Stops what is left of a process group in the background. */
  stopLater(pgid: number): void;
}

/** What restoring the saved sessions leaves for the manager. */
export interface Restored {
  /** The highest sequence number seen, forgotten sessions included: new sessions count on from it. */
  lastSeq: number;
  /** Sessions that wait for a GPU again, in creation order. */
  queued: Session[];
  /** Adopted applications that were still starting, for {@link probeAdoptedStarting}. */
  adoptedStarting: Session[];
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
  const restored: Restored = { lastSeq: 0, queued: [], adoptedStarting: [] };
  for (const saved of [...loaded.sessions].sort((a, b) => a.seq - b.seq)) {
    try {
      restoreOne(saved, restored, context);
    } catch (error) {
      logger.error({ err: (error as Error).message }, 'A saved session could not be restored; it is dropped');
    }
  }
  return restored;
}

/** Rebuilds one session from disk: adopts its application, marks it failed, or queues it again. */
function restoreOne(saved: PersistedSession, restored: Restored, context: RestoreContext): void {
  if (!isPersistedSession(saved)) throw new Error('malformed session in the state file');
  restored.lastSeq = Math.max(restored.lastSeq, saved.seq);
  const plan = planRestore(saved, Date.now(), context.failedRetentionMs);
  if (plan.kind === 'forget') return;
  if (saved.warm && plan.kind !== 'adopt') {
    // A warm application that no longer runs is nobody's loss: the pool starts another.
    if (plan.kind === 'queue' && plan.strayPid !== undefined) context.stopLater(plan.strayPid);
    return;
  }
  const session = context.revive(saved);
  const { record, request } = session;
  context.hold(session);
  if (plan.kind === 'failed') return;
  if (plan.kind === 'queue') {
    if (plan.strayPid !== undefined) context.stopLater(plan.strayPid);
    session.requeue();
    return void restored.queued.push(session);
  }
  if (plan.kind === 'lost') {
    // Neither the ports (never claimed) nor the pid (another process's now) are this session's to give back.
    return void session.fail(`${label(request)} stopped while the service was down`, {});
  }
  if (!record.ports || !context.pool.claim(record.ports)) {
    // Only a damaged state file gives two sessions one port; the application is ours, so it is stopped.
    return void session.fail(`${label(request)} could not keep its network ports after a restart`, {
      pid: plan.pid,
    });
  }
  session.adopt(plan.pid, plan.startTicks);
  context.logger.info({ sessionId: record.id, pid: record.pid }, `Adopted ${label(request)}`);
  if (session.phase === 'starting') restored.adoptedStarting.push(session);
}

/**
 * Probes each adopted application that was still starting once (start() waits for this), so that one
 * which became ready while the service was down is reported ready at once; the others go on being watched.
 */
export async function probeAdoptedStarting(
  starting: readonly Session[],
  context: Pick<RestoreContext, 'publicHost' | 'watchReadiness'>,
): Promise<void> {
  await Promise.all(
    starting.map(async (session) => {
      const health = await probeHealth(context.publicHost, session.record.ports!.signaling, 1_000);
      if (!(health.ok && session.ready())) void context.watchReadiness(session);
    }),
  );
}
