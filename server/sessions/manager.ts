/**
 * The session machinery behind /stream. The manager schedules: a first-in-first-out queue in front of a
 * fixed number of GPUs, the sessions it holds (session.ts, each the owner of its own state), their
 * counts per owner and their durable state. The runner (session-runtime.ts) starts and watches the
 * applications; the restore (session-restore.ts) takes over survivors of a restart; warm-pool.ts keeps some warm.
 */
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { CONTROL_TTL_S, ViewerTickets } from '../auth/viewer-tickets.ts';
import { DomainError } from '../errors.ts';
import { tidyLogs } from '../runners/local-runner.ts';
import { removeStill, stillDirBeside } from './still-files.ts';
import { stopGroup } from '../runners/process-group.ts';
import { OwnerCounts } from './owner-counts.ts';
import { PRIVATE_DIR_MODE } from './private-files.ts';
import { noteEphemeralPorts, PortPool } from './port-pool.ts';
import { resolveOptions } from './options.ts';
import { sessionEncoder, type PersistedSession } from './saved-session.ts';
import { Session, type SessionEvent } from './session.ts';
import { label } from './session-messages.ts';
import { probeAdoptedStarting, restoreSessions, type RestoreContext } from './session-restore.ts';
import { createSessionRuntime } from './session-runtime.ts';
import { ServiceLock } from './service-lock.ts';
import { StateStore } from './state-store.ts';
import { capacityReport, sessionCounts } from './capacity.ts';
import { GpuShare, userGpuShare } from './fair-share.ts';
import { orderStopSharing } from './sharing.ts';
import { WarmPool } from './warm-pool.ts';
import {
  QueueFullError,
  StateWriteError,
  type SessionLogger,
  type SessionManager,
  type SessionManagerOptions,
} from './types.ts';

const silent: SessionLogger = { info: () => {}, warn: () => {}, error: () => {} };

/** Logs of applications are kept this long (a week), then removed when the service starts. */
const logRetentionMs = 7 * 24 * 3_600_000;

/** Builds the manager; nothing runs until `start()`. */
export function createSessionManager(
  given: SessionManagerOptions,
  logger: SessionLogger = silent,
): SessionManager {
  const options = resolveOptions(given);
  const pool = new PortPool(options.portRange);
  const lock = new ServiceLock(options.dataDir);
  const logDir = path.join(options.dataDir, 'logs');
  const sessions = new Map<string, Session>();
  // Pending or ready, for the per-user limit: a warm session is nobody's until it is claimed.
  const owners = new OwnerCounts<Session>(
    (entry) =>
      !entry.warm && entry.phase !== 'failed' && entry.phase !== 'gone' && sessions.get(entry.id) === entry,
  );
  /** Each user's share of the GPUs: who may start while others wait. */
  const share = new GpuShare<Session>(userGpuShare(options.capacity, options.userGpuShare), options.capacity);
  const store = new StateStore<PersistedSession, Session>(options.dataDir, {
    items: () => sessions,
    key: (saved) => saved.record.id,
    encode: sessionEncoder(),
    onWriteError: (error) => logger.error({ err: error.message }, 'Could not save the session state'),
  });
  const queue: Session[] = [];
  /** Stops of failed applications still under way; `stop()` waits for them. */
  const stopping = new Set<Promise<void>>();
  let seq = 0;
  let stopped = false;
  /** While saved sessions are read back, nothing starts: adopted ones must hold their GPUs first. */
  let restoring = false;
  let ticker: NodeJS.Timeout | undefined;
  let tickets = given.tickets ?? null;
  const runtime = createSessionRuntime({
    publicHost: options.publicHost,
    appCwd: options.appCwd,
    logDir,
    readyPollMs: options.readyPollMs,
    pool,
    logger,
    tickets: () => {
      if (!tickets) throw new Error('The session manager has not started.');
      return tickets;
    },
    viewerOrigins: options.viewerOrigins,
    isStopped: () => stopped,
    end,
    stopLater,
    probeH264: options.probeH264,
    sandbox: options.sandbox,
  });
  // Where real programs are refused, none is kept warm either.
  const warmTargets = options.warm.filter(({ target }) => !target.launch || !options.sandbox.refusal);
  const warmPool = new WarmPool(warmTargets, {
    hasFreeGpu,
    startWarm(request) {
      const session = Session.create(request, ++seq, onEvent, true);
      sessions.set(session.id, session);
      changed(session);
      session.launching = runtime.launch(session);
    },
    end,
  });
  const restoreContext: RestoreContext = {
    publicHost: options.publicHost,
    pool,
    logger,
    failedRetentionMs: options.failedRetentionMs,
    revive: (saved) => Session.revive(saved, onEvent),
    hold(session) {
      sessions.set(session.id, session);
      // Before the first pump: warm sessions that run on are counted, not started again.
      warmPool.update(session);
      if (session.phase === 'failed') forgetLater(session);
    },
    stopLater,
    watchReadiness: runtime.watchReadiness,
  };

  /** What the manager does about a session's transition: free what it held, schedule, save. */
  function onEvent(session: Session, event: SessionEvent): void {
    const sessionId = session.id;
    // Before the pumps below: a session that let go of its GPU no longer counts against its owner's share.
    share.update(session);
    switch (event.type) {
      case 'ending':
        // Nothing saved changes until the process is gone.
        return;
      case 'ready':
        if (session.warm) warmPool.ready(session);
        logger.info({ sessionId, warm: session.warm || undefined }, session.record.message);
        // Its sharing was stopped before its application could be told.
        if (session.watchCutoffMs !== undefined) void tellSharingStopped(session);
        break;
      case 'claimed':
        logger.info({ sessionId }, `Handed a warm ${label(session.request)} to its session`);
        break;
      case 'failed':
        pool.release(event.released.ports);
        // Its process group first, then whatever it left in its control groups (an orphaned X server, a setsid child).
        stopLater(event.released.pid, () => options.sandbox.release(sessionId));
        logger.warn({ sessionId, warm: session.warm || undefined }, event.reason);
        if (session.warm) warmPool.failed(session);
        else forgetLater(session);
        pump();
        break;
      case 'gone':
        pool.release(event.released.ports);
        // Its application is gone: so is its still. The runner removes the stills of its own children as they
        // exit; an application adopted after a restart of the service is no child of this one. A session that
        // never held ports never ran one.
        if (event.released.ports) removeStill(stillDirBeside(logDir), sessionId);
        if (sessions.get(sessionId) === session) sessions.delete(sessionId);
        pump();
        break;
    }
    changed(session);
  }

  /** Whether fewer than `capacity` sessions hold a GPU; it stops counting at `capacity` (it runs on every create). */
  function hasFreeGpu(): boolean {
    let count = 0;
    for (const session of sessions.values())
      if (session.holdsGpu && ++count >= options.capacity) return false;
    return true;
  }

  /** GPUs no session holds. */
  function freeGpus(): number {
    let held = 0;
    for (const session of sessions.values()) if (session.holdsGpu) held++;
    return Math.max(0, options.capacity - held);
  }

  /** A change of a session (or all) goes into the next write, awaited by nobody but create(). */
  function changed(session: Session | 'all'): void {
    if (session === 'all') {
      owners.recount(sessions.values());
      share.recount(sessions.values());
      warmPool.recount(sessions.values());
    } else {
      owners.update(session);
      share.update(session);
      warmPool.update(session);
    }
    store.note(session === 'all' ? 'all' : session.id);
  }

  /**
   * Starts queued sessions while GPUs are free, in queue order but for those whose owners hold their share;
   * then warm ones give way to the sessions a GPU would start, or are filled up.
   */
  function pump(): void {
    if (stopped || restoring) return;
    if (queue.length > 0 && hasFreeGpu()) {
      for (const session of share.pick(queue, freeGpus())) {
        queue.splice(queue.indexOf(session), 1);
        session.launching = runtime.launch(session);
      }
    }
    const waiting = share.share === null ? queue.length : share.pick(queue, Infinity).length;
    if (waiting > 0) warmPool.giveWay(waiting);
    else warmPool.fill();
  }

  /** The record callers get; a session held back by its owner's share says so. */
  function recordOf(session: Session, places: readonly Session[] | ReadonlyMap<Session, number>) {
    const record = session.toRecord(places);
    const held = share.waiting(session);
    if (held !== undefined) record.message = held;
    return record;
  }

  /** Tells a ready application where its session's sharing stopped: the watchers it dropped, null unheard. */
  async function tellSharingStopped(session: Session): Promise<number | null> {
    const { ports } = session.record;
    if (!ports || !tickets || session.watchCutoffMs === undefined) return null;
    const order = await tickets.serviceTicket(session.id, session.watchCutoffMs);
    const dropped = await orderStopSharing(options.publicHost, ports.signaling, order);
    if (dropped === null)
      logger.warn({ sessionId: session.id }, 'The application did not take the stop of sharing');
    else
      logger.info(
        { sessionId: session.id, watchersDropped: dropped },
        'Stopped sharing: earlier watch links fail',
      );
    return dropped;
  }

  /** Stops what is left of a process group in the background, then runs `then`; stop() waits for both. */
  function stopLater(pgid: number | undefined, then?: () => Promise<void>): void {
    const stopped = pgid === undefined ? Promise.resolve() : stopGroup(pgid, options.stopGraceMs);
    const promise = then ? stopped.then(then) : stopped;
    stopping.add(promise);
    void promise.finally(() => stopping.delete(promise));
  }

  function forgetLater(session: Session): void {
    const failedAt = Date.parse(session.record.failedAt ?? '') || Date.now();
    const delay = Math.max(0, failedAt + options.failedRetentionMs - Date.now());
    session.forgetTimer = setTimeout(() => {
      if (sessions.get(session.id) === session && session.phase === 'failed') session.gone();
    }, delay);
    session.forgetTimer.unref();
  }

  /** A session the API may show: not a warm one, which is nobody's yet. */
  function visible(session: Session | undefined): Session | undefined {
    return session?.warm ? undefined : session;
  }

  /** A session just created or claimed: on disk before it is answered, then given a short wait for readiness. */
  async function accepted(session: Session) {
    try {
      await store.save(session.id);
    } catch (error) {
      await end(session.id);
      throw new StateWriteError(error as Error);
    }
    // A session queued behind a full set of GPUs cannot be ready within a wait meant for a fast
    // start: answering pending at once is honest, and spares a timer per request.
    if (options.readyWaitMs > 0 && session.phase !== 'queued') await session.settled(options.readyWaitMs);
    return recordOf(session, queue);
  }

  async function end(id: string): Promise<void> {
    const session = sessions.get(id);
    if (!session) return;
    if (session.phase === 'ending') return session.ending;
    if (!session.end()) {
      // Queued or failed: nothing runs.
      clearTimeout(session.forgetTimer);
      const position = queue.indexOf(session);
      if (position >= 0) queue.splice(position, 1);
      return session.gone();
    }
    session.ending = (async () => {
      await session.launching;
      if (session.record.pid !== undefined) await stopGroup(session.record.pid, options.stopGraceMs);
      await options.sandbox.release(id);
      logger.info({ sessionId: id }, `Ended ${label(session.request)}`);
      session.gone();
    })();
    return session.ending;
  }

  return {
    async start() {
      await mkdir(options.dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
      // An existing directory keeps its mode through mkdir: the service's keys and state are its own alone.
      await chmod(options.dataDir, PRIVATE_DIR_MODE);
      await lock.acquire();
      tickets ??= await ViewerTickets.open(options.dataDir);
      await tidyLogs(logDir, logRetentionMs).catch(() => undefined);
      noteEphemeralPorts(options.portRange, logger);
      const loaded = await store.load();
      restoring = true;
      const restored = restoreSessions(loaded, restoreContext);
      queue.push(...restored.queued);
      seq = Math.max(seq, restored.lastSeq);
      restoring = false;
      await probeAdoptedStarting(restored.adoptedStarting, restoreContext);
      // What sessions that ended while no service watched them left behind (a host killed with its service).
      const swept = await options.sandbox.sweep((id) => {
        const session = sessions.get(id);
        return session !== undefined && session.phase !== 'failed';
      });
      if (swept.length > 0) logger.info({ sessions: swept }, 'Removed what ended sessions left running');
      pump();
      changed('all');
      ticker = setInterval(() => {
        runtime.tick(sessions.values());
        // Warm applications held back after a failure are started again once their wait is over.
        pump();
      }, options.healthPollMs);
      ticker.unref();
    },

    async create(request) {
      if (stopped) throw new Error('The session service is stopping.');
      const refusal = request.launch && options.sandbox.refuses(request.app.name);
      if (refusal) throw new DomainError(503, refusal);
      // A warm application is a GPU too: not for someone who holds their share already.
      const mayStart = share.allows(request);
      const warm = mayStart ? warmPool.claim(request) : undefined;
      if (warm) return accepted(warm);
      // With a share, whatever waits while a GPU is free is held back by its owner's share (pump).
      const startsNow = mayStart && (queue.length === 0 || share.share !== null) && hasFreeGpu();
      if (!startsNow && queue.length >= options.queueLimit)
        throw new QueueFullError(options.retryAfterSeconds);
      const session = Session.create(request, ++seq, onEvent);
      sessions.set(session.id, session);
      owners.update(session);
      queue.push(session);
      pump();
      return accepted(session);
    },

    get(id) {
      const session = visible(sessions.get(id));
      return session && recordOf(session, queue);
    },

    list(owner, offset, limit) {
      const mine = [...sessions.values()]
        .filter((session) => !session.warm && (owner === null || session.record.owner === owner))
        .sort((a, b) => a.seq - b.seq);
      const page = mine.slice(offset, offset + limit);
      // Places in the queue found in one pass, not one search of the queue per record.
      const places = page.some((session) => session.phase === 'queued')
        ? new Map(queue.map((session, i) => [session, i]))
        : queue;
      return { count: mine.length, items: page.map((session) => recordOf(session, places)) };
    },

    end,

    activeCount: (owner) => owners.of(owner),

    async issueTicket(id, scope, ttlS) {
      const session = visible(sessions.get(id));
      if (!session || session.phase === 'failed' || session.phase === 'ending' || !tickets) return undefined;
      const { settings } = session.request.profile;
      const began = session.startedAt ?? Date.parse(session.record.createdAt);
      const left = Math.max(1, Math.floor((began + settings.maxLifetimeMs - Date.now()) / 1000));
      const wanted = ttlS ?? (scope === 'control' ? CONTROL_TTL_S : left);
      // A watch ticket is issued after the last stop of sharing, even one of the same millisecond.
      const cutoff = session.watchCutoffMs;
      return tickets.issue(
        id,
        scope,
        Math.min(wanted, left),
        scope === 'watch' && cutoff ? cutoff + 1 : undefined,
      );
    },

    async stopSharing(id) {
      const session = visible(sessions.get(id));
      const live = session?.phase === 'queued' || session?.phase === 'starting' || session?.phase === 'ready';
      if (!session || !live || !tickets) return undefined;
      session.stopSharing(Date.now());
      // One not ready yet is told once it is (onEvent).
      if (session.phase !== 'ready') return { watchersDropped: 0 };
      const dropped = await tellSharingStopped(session);
      if (dropped === null) {
        throw new DomainError(
          503,
          `${label(session.request)} did not answer the stop of sharing; try again in a moment.`,
          { 'retry-after': '5' },
        );
      }
      return { watchersDropped: dropped };
    },

    counts: () => sessionCounts(sessions.values(), queue.length),

    capacity: () => capacityReport(options.capacity, sessions.values(), queue, warmPool.byProfile()),

    async stop() {
      stopped = true;
      clearInterval(ticker);
      for (const session of queue.splice(0)) sessions.delete(session.id);
      await Promise.all([...sessions.values()].filter((s) => s.phase !== 'failed').map((s) => end(s.id)));
      await Promise.all([...stopping]);
      for (const session of sessions.values()) clearTimeout(session.forgetTimer);
      changed('all');
      await store.flush();
      await lock.release();
    },
  };
}
