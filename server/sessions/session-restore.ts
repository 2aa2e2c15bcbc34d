/**
 * Restoring saved sessions when the service starts: what to do with each one (the decision, read from the
 * saved record and from what the runner finds running now), carried out by the session's own methods.
 */
import { isPersistedSession, type PersistedSession } from './saved-session.ts';
import type { Session } from './session.ts';
import { label } from './session-messages.ts';
import type { LoadResult } from '../state/session-repository.ts';
import type { Runner, SessionLogger } from '../runners/runner.ts';

/** What carrying out a restore needs. */
export interface RestoreContext {
  runner: Runner;
  logger: SessionLogger;
  failedRetentionMs: number;
  /** A session of the manager's, held from now on, from what was saved. */
  revive(saved: PersistedSession): Session;
}

/** What restoring the saved sessions leaves for the manager. */
export interface Restored {
  /** The highest sequence number seen, forgotten sessions included: new sessions count on from it. */
  lastSeq: number;
  /** Sessions that wait for a GPU again, in creation order. */
  queued: Session[];
  /**
   * Adopted applications that were still starting have each been asked once when this resolves, so that one
   * which became ready while the service was down is ready at once; the others go on being watched.
   */
  asked: Promise<void>;
}

/**
 * Rebuilds the sessions the store loaded, in the order they were created; one that cannot be restored is
 * logged and dropped. The caller keeps the queue from starting anything meanwhile: adopted sessions must
 * hold their GPUs first.
 */
export function restoreSessions(loaded: LoadResult<PersistedSession>, context: RestoreContext): Restored {
  const { logger } = context;
  for (const problem of loaded.problems) logger.error({ problem }, 'Damaged session state set aside');
  if (loaded.source === 'backup') logger.warn({}, 'Session state recovered from its backup copy');
  let lastSeq = 0;
  const queued: Session[] = [];
  const asking: Promise<void>[] = [];
  for (const saved of [...loaded.sessions].sort((a, b) => a.seq - b.seq)) {
    try {
      if (!isPersistedSession(saved)) throw new Error('malformed session in the state file');
      lastSeq = Math.max(lastSeq, saved.seq);
      const outcome = restoreOne(saved, context);
      if (outcome.queued) queued.push(outcome.queued);
      if (outcome.asked) asking.push(outcome.asked);
    } catch (error) {
      logger.error({ err: (error as Error).message }, 'A saved session could not be restored; it is dropped');
    }
  }
  return { lastSeq, queued, asked: Promise.all(asking).then(() => undefined) };
}

/** Rebuilds one session from disk: adopts its application, marks it failed, or queues it again. */
function restoreOne(
  saved: PersistedSession,
  context: RestoreContext,
): { queued?: Session; asked?: Promise<void> } {
  const { record } = saved;
  if (record.state === 'failed') {
    // Failed longer ago than the retention: not restored at all; else still visible until then.
    if (Date.parse(record.failedAt ?? '') + context.failedRetentionMs > Date.now()) context.revive(saved);
    return {};
  }
  const recovery = context.runner.recover(record.id, {
    handle: { pid: record.pid, startTicks: saved.startTicks, job: record.job },
    ports: record.ports,
    started: record.state === 'ready',
  });
  // A warm application that no longer runs is nobody's loss: the pool starts another.
  if (saved.warm && recovery.kind !== 'running') return {};
  const session = context.revive(saved);
  if (recovery.kind === 'absent') {
    session.requeue();
    return { queued: session };
  }
  if (recovery.kind === 'lost') {
    // What the runner found is not this session's to stop (a pid that is another process's now).
    session.fail(`${label(session.request)} ${recovery.reason}`, {});
    return {};
  }
  context.logger.info(
    { sessionId: record.id, pid: recovery.handle.pid },
    `Adopted ${label(session.request)}`,
  );
  return { asked: session.resume(recovery.handle) };
}
