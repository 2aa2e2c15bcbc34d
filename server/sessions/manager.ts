/**
 * The session machinery behind /stream: a first-in-first-out queue in front of a fixed number of GPUs,
 * ports, one application process per session, readiness, idle and lifetime limits, and durable state
 * that lets a restarted service adopt the applications that outlived it.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pruneLogs } from '../runners/local-runner.ts';
import { stopGroup } from '../runners/process-group.ts';
import { ephemeralPortsIn, PortPool } from './port-pool.ts';
import { resolveOptions } from './options.ts';
import {
  label,
  newEntry,
  readyMessage,
  recordOf,
  entryEncoder,
  type Entry,
  type PersistedSession,
} from './session-entry.ts';
import { probeAdoptedStarting, restoreSessions, type RestoreContext } from './session-restore.ts';
import { createSessionRuntime } from './session-runtime.ts';
import { ServiceLock } from './service-lock.ts';
import { StateStore } from './state-store.ts';
import {
  QueueFullError,
  StateWriteError,
  type SessionCounts,
  type SessionLogger,
  type SessionManager,
  type SessionManagerOptions,
  type SessionRecord,
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
  const entries = new Map<string, Entry>();
  const store = new StateStore<PersistedSession, Entry>(options.dataDir, {
    items: () => entries,
    key: (session) => session.record.id,
    encode: entryEncoder(),
    onWriteError: (error) => logger.error({ err: error.message }, 'Could not save the session state'),
  });
  const queue: Entry[] = [];
  const listeners = new Set<() => void>();
  /** Stops of failed applications still under way; `stop()` waits for them. */
  const stopping = new Set<Promise<void>>();
  let seq = 0;
  let stopped = false;
  /** While saved sessions are read back, nothing starts: adopted ones must hold their GPUs first. */
  let restoring = false;
  let ticker: NodeJS.Timeout | undefined;
  // The runtime and the restore reach the manager through the same few functions.
  const shared = { publicHost: options.publicHost, pool, logger, fail, markReady, stopLater };
  const runtime = createSessionRuntime({
    ...shared,
    appCwd: options.appCwd,
    logDir,
    readyPollMs: options.readyPollMs,
    isStopped: () => stopped,
    changed,
    end,
  });
  const restoreContext: RestoreContext = {
    ...shared,
    failedRetentionMs: options.failedRetentionMs,
    entries,
    queue,
    forgetLater,
    watchReadiness: runtime.watchReadiness,
  };

  const copy = (entry: Entry): SessionRecord => recordOf(entry, queue);

  /**
   * Whether fewer than `capacity` sessions hold a GPU. It stops counting at `capacity`: it runs on
   * every create, and with a full set of GPUs the holders are usually among the first entries.
   */
  function hasFreeGpu(): boolean {
    let count = 0;
    for (const entry of entries.values()) {
      if (entry.phase === 'starting' || entry.phase === 'ready' || entry.phase === 'ending') {
        if (++count >= options.capacity) return false;
      }
    }
    return true;
  }

  /**
   * Something about a session (or all of them) changed: it goes into the next write, which nobody waits
   * for (a failed write is logged, and the next one holds the whole state), and whoever waits wakes.
   * Only create() waits for its write: an accepted session is on disk before it is answered.
   */
  function changed(entry: Entry | 'all'): void {
    store.note(entry === 'all' ? 'all' : entry.record.id);
    wake();
  }

  /** Tells whoever waits for a session to settle that something changed. */
  function wake(): void {
    if (listeners.size > 0) for (const listener of [...listeners]) listener();
  }

  function pump(): void {
    while (!stopped && !restoring && queue.length > 0 && hasFreeGpu()) {
      const entry = queue.shift();
      if (entry) entry.launching = runtime.launch(entry);
    }
  }

  /** Stops what is left of a process group in the background; stop() waits for it. */
  function stopLater(pgid: number): void {
    const promise = stopGroup(pgid, options.stopGraceMs);
    stopping.add(promise);
    void promise.finally(() => stopping.delete(promise));
  }

  function forgetLater(entry: Entry): void {
    const failedAt = Date.parse(entry.record.failedAt ?? '') || Date.now();
    const delay = Math.max(0, failedAt + options.failedRetentionMs - Date.now());
    entry.forgetTimer = setTimeout(() => {
      if (entries.get(entry.record.id) !== entry || entry.phase !== 'failed') return;
      entries.delete(entry.record.id);
      changed(entry);
    }, delay);
    entry.forgetTimer.unref();
  }

  /** Ports and capacity are freed at once; the process (if any is left) is stopped in the background. */
  function fail(entry: Entry, reason: string): void {
    if (entry.phase === 'failed' || entry.phase === 'ending') return;
    const { record } = entry;
    const pid = record.pid;
    entry.phase = 'failed';
    record.state = 'failed';
    record.message = reason;
    record.failedAt = new Date().toISOString();
    pool.release(record.ports);
    delete record.ports;
    delete record.pid;
    if (pid !== undefined) stopLater(pid);
    logger.warn({ sessionId: record.id }, reason);
    forgetLater(entry);
    pump();
    changed(entry);
  }

  function markReady(entry: Entry): void {
    entry.phase = 'ready';
    entry.record.state = 'ready';
    entry.record.message = readyMessage(entry.request);
    entry.record.readyAt = new Date().toISOString();
    entry.idleSince = Date.now();
    logger.info({ sessionId: entry.record.id }, entry.record.message);
    changed(entry);
  }

  function waitSettled(entry: Entry, timeoutMs: number): Promise<void> {
    // A session queued behind a full set of GPUs cannot be ready within a wait meant for a fast start:
    // answering pending at once is honest, and spares a timer and a listener per request.
    if (timeoutMs <= 0 || entry.phase === 'queued') return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        listeners.delete(listener);
        resolve();
      };
      const listener = () => {
        if (entry.phase === 'ready' || entry.phase === 'failed' || entries.get(entry.record.id) !== entry)
          done();
      };
      const timer = setTimeout(done, timeoutMs);
      listeners.add(listener);
      listener();
    });
  }

  async function end(id: string): Promise<void> {
    const entry = entries.get(id);
    if (!entry) return;
    if (entry.phase === 'ending') return entry.ending;
    if (entry.phase === 'queued' || entry.phase === 'failed') {
      clearTimeout(entry.forgetTimer);
      const position = queue.indexOf(entry);
      if (position >= 0) queue.splice(position, 1);
      entries.delete(id);
      changed(entry);
      return;
    }
    entry.phase = 'ending';
    entry.ending = (async () => {
      await entry.launching;
      const { record } = entry;
      if (record.pid !== undefined) await stopGroup(record.pid, options.stopGraceMs);
      pool.release(record.ports);
      entries.delete(id);
      logger.info({ sessionId: id }, `Ended ${label(entry.request)}`);
      pump();
      changed(entry);
    })();
    return entry.ending;
  }

  return {
    async start() {
      await mkdir(options.dataDir, { recursive: true });
      await lock.acquire();
      await pruneLogs(logDir, logRetentionMs).catch(() => undefined);
      const exposed = ephemeralPortsIn(options.portRange);
      if (exposed.length > 0) {
        logger.warn(
          { first: exposed[0], last: exposed.at(-1), count: exposed.length },
          'Session ports lie among the ports the system gives outgoing connections; reserve them ' +
            '(sysctl net.ipv4.ip_local_reserved_ports) so that an application never loses one',
        );
      }
      const loaded = await store.load();
      restoring = true;
      const restored = restoreSessions(loaded, restoreContext);
      seq = Math.max(seq, restored.lastSeq);
      restoring = false;
      await probeAdoptedStarting(restored.adoptedStarting, restoreContext);
      pump();
      changed('all');
      ticker = setInterval(() => runtime.tick(entries.values()), options.healthPollMs);
      ticker.unref();
    },

    async create(request) {
      if (stopped) throw new Error('The session service is stopping.');
      const startsNow = queue.length === 0 && hasFreeGpu();
      if (!startsNow && queue.length >= options.queueLimit)
        throw new QueueFullError(options.retryAfterSeconds);
      const entry = newEntry(request, ++seq);
      entries.set(entry.record.id, entry);
      queue.push(entry);
      pump();
      // Accepted means on disk: a crash right after the answer must not lose the session.
      const saved = store.save(entry.record.id);
      wake();
      try {
        await saved;
      } catch (error) {
        await end(entry.record.id);
        throw new StateWriteError(error as Error);
      }
      await waitSettled(entry, options.readyWaitMs);
      return copy(entry);
    },

    get(id) {
      const entry = entries.get(id);
      return entry ? copy(entry) : undefined;
    },

    list(owner, offset, limit) {
      const mine = [...entries.values()]
        .filter((entry) => owner === null || entry.record.owner === owner)
        .sort((a, b) => a.seq - b.seq);
      const page = mine.slice(offset, offset + limit);
      // Places in the queue found in one pass, not one search of the queue per record.
      const places = page.some((entry) => entry.phase === 'queued')
        ? new Map(queue.map((entry, i) => [entry, i]))
        : queue;
      return { count: mine.length, items: page.map((entry) => recordOf(entry, places)) };
    },

    end,

    counts(): SessionCounts {
      const counts: SessionCounts = { pending: 0, ready: 0, failed: 0, queued: queue.length };
      for (const entry of entries.values()) counts[entry.record.state]++;
      return counts;
    },

    async stop() {
      stopped = true;
      clearInterval(ticker);
      for (const entry of queue.splice(0)) entries.delete(entry.record.id);
      await Promise.all(
        [...entries.values()].filter((e) => e.phase !== 'failed').map((e) => end(e.record.id)),
      );
      await Promise.all([...stopping]);
      for (const entry of entries.values()) clearTimeout(entry.forgetTimer);
      changed('all');
      await store.flush();
      await lock.release();
    },
  };
}
