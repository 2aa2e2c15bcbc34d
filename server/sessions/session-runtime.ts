/**
 * The process side of one session: ports, spawn, readiness, and the periodic checks of a running
 * application (exit, health, viewers, lifetime). Bookkeeping (queue, records, durable state) stays in
 * the manager, which this reaches through a small context.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { launchApplication } from '../runners/local-runner.ts';
import { isAlive, startTicks } from '../runners/process-group.ts';
import { probeHealth } from './health-probe.ts';
import { canBind, type PortPool } from './port-pool.ts';
import { exitMessage, label, startingMessage, timeoutMessage, type Entry } from './session-entry.ts';
import type { SessionLogger } from './types.ts';

/** What the runtime needs from the manager. */
export interface RuntimeContext {
  publicHost: string;
  appCwd?: string;
  logDir: string;
  readyPollMs: number;
  pool: PortPool;
  logger: SessionLogger;
  isStopped(): boolean;
  /** Something about this session changed: save it and wake whoever waits. */
  changed(entry: Entry): void;
  fail(entry: Entry, reason: string): void;
  markReady(entry: Entry): void;
  end(id: string): Promise<void>;
  /** Stops what is left of a process group in the background (stop() waits for it). */
  stopLater(pgid: number): void;
}

export interface SessionRuntime {
  /** Allocates ports, spawns the application and starts watching for readiness. */
  launch(entry: Entry): Promise<void>;
  /** Asks a starting application until it is ready, exits, or runs out of start-up time. */
  watchReadiness(entry: Entry): Promise<void>;
  /** One round of checks over the ready sessions. */
  tick(entries: Iterable<Entry>): void;
}

/** How often one session is started again after losing a port to another program. */
const MAX_PORT_RETRIES = 2;

async function portsFree(ports: { signaling: number; media: number }): Promise<boolean> {
  return (await canBind(ports.signaling, 'tcp')) && (await canBind(ports.media, 'udp'));
}

/** Builds the runtime over the manager's context. */
export function createSessionRuntime(context: RuntimeContext): SessionRuntime {
  async function launch(entry: Entry): Promise<void> {
    const { record, request } = entry;
    const attempt = (entry.attempt = (entry.attempt ?? 0) + 1);
    entry.phase = 'starting';
    entry.startedAt = Date.now();
    record.message = startingMessage(request);
    context.changed(entry);
    const ports = await context.pool.allocate();
    if (entry.phase !== 'starting') return context.pool.release(ports);
    if (!ports)
      return context.fail(entry, `No free network port for ${label(request)}; try again when a session ends`);
    record.ports = ports;
    try {
      const child = await launchApplication(
        { sessionId: record.id, request, ports, host: context.publicHost },
        { logDir: context.logDir, cwd: context.appCwd },
      );
      const pid = child.pid as number;
      entry.child = child;
      record.pid = pid;
      entry.startTicks = startTicks(pid);
      child.once('exit', (code, signal) => void onExit(entry, attempt, code, signal));
    } catch (error) {
      context.logger.error(
        { sessionId: record.id, err: (error as Error).message },
        'Could not start the application',
      );
      return context.fail(entry, `${label(request)} could not be started`);
    }
    if (entry.phase !== 'starting') return;
    context.changed(entry);
    void watchReadiness(entry);
  }

  /**
   * An application that exits before it is ready fails its session, unless another program now holds
   * one of its ports: it lost the race for a port between our bind test and its own bind (the port
   * ranges usually lie among the system's ephemeral ports). Then it is started again on other ports.
   */
  async function onExit(
    entry: Entry,
    attempt: number,
    code: number | null,
    signal: NodeJS.Signals | null,
  ): Promise<void> {
    const { record, request } = entry;
    if (entry.attempt !== attempt) return;
    if (entry.phase === 'ready') return context.fail(entry, exitMessage(request, code, signal, false));
    if (entry.phase !== 'starting') return;
    const ports = record.ports;
    const retry =
      ports !== undefined && (entry.portRetries ?? 0) < MAX_PORT_RETRIES && !(await portsFree(ports));
    if (entry.phase !== 'starting' || entry.attempt !== attempt) return;
    if (!retry) return context.fail(entry, exitMessage(request, code, signal, true));
    entry.portRetries = (entry.portRetries ?? 0) + 1;
    context.logger.warn(
      { sessionId: record.id, ports },
      `Another program took a port of ${label(request)} before it could bind it; starting it again on other ports`,
    );
    if (record.pid !== undefined) context.stopLater(record.pid);
    context.pool.release(ports);
    delete record.ports;
    delete record.pid;
    entry.child = undefined;
    entry.launching = launch(entry);
  }

  async function watchReadiness(entry: Entry): Promise<void> {
    const { record, request } = entry;
    const deadline = (entry.startedAt ?? Date.now()) + request.profile.settings.startupTimeoutMs;
    const attempt = entry.attempt;
    while (
      entry.attempt === attempt &&
      entry.phase === 'starting' &&
      !context.isStopped() &&
      record.ports &&
      record.pid !== undefined
    ) {
      if (entry.adopted && !isAlive(record.pid))
        return context.fail(entry, `${label(request)} exited before it was ready`);
      const health = await probeHealth(context.publicHost, record.ports.signaling, 1_000);
      if (entry.phase !== 'starting' || entry.attempt !== attempt) return;
      if (health.ok) return context.markReady(entry);
      if (Date.now() >= deadline) return context.fail(entry, timeoutMessage(request));
      await sleep(context.readyPollMs);
    }
  }

  /** Lifetime, idle time and health of one ready session. */
  async function check(entry: Entry): Promise<void> {
    const { record, request } = entry;
    const settings = request.profile.settings;
    if (Date.now() - (entry.startedAt ?? Date.now()) >= settings.maxLifetimeMs) {
      context.logger.info(
        { sessionId: record.id },
        `${label(request)} reached its maximum lifetime; ending it`,
      );
      return context.end(record.id);
    }
    if (entry.adopted && record.pid !== undefined && !isAlive(record.pid)) {
      return context.fail(entry, `${label(request)} exited`);
    }
    if (entry.probing || !record.ports) return;
    entry.probing = true;
    const health = await probeHealth(context.publicHost, record.ports.signaling, 1_000).finally(() => {
      entry.probing = false;
    });
    if (entry.phase !== 'ready') return;
    const now = Date.now();
    if (!health.ok) {
      entry.unhealthySince ??= now;
      if (now - entry.unhealthySince >= settings.startupTimeoutMs)
        context.fail(entry, `${label(request)} stopped answering`);
      return;
    }
    entry.unhealthySince = undefined;
    // An application that does not report viewers is never taken for idle.
    if (health.viewers === undefined) return;
    if (health.viewers > 0) {
      entry.idleSince = undefined;
      return;
    }
    entry.idleSince ??= now;
    if (now - entry.idleSince >= settings.idleTimeoutMs) {
      context.logger.info({ sessionId: record.id }, `${label(request)} had no viewer for a while; ending it`);
      await context.end(record.id);
    }
  }

  function tick(entries: Iterable<Entry>): void {
    for (const entry of entries) {
      if (entry.phase === 'ready') {
        void check(entry).catch((error: Error) =>
          context.logger.error({ sessionId: entry.record.id, err: error.message }, 'Session check failed'),
        );
      }
    }
  }

  return { launch, watchReadiness, tick };
}
