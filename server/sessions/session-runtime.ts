/**
 * The runner: the process side of one session. It allocates ports, spawns the application, watches it
 * until it is ready, and checks a running one (exit, health, viewers, lifetime); what it sees it turns
 * into the session's transitions (session.ts). Scheduling (queue, capacity, durable state) is the
 * manager's, which this reaches for ending a session and for the services below.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { announcedReady, lastLogLine, launchApplication } from '../runners/local-runner.ts';
import { isAlive, startTicks } from '../runners/process-group.ts';
import { probeHealth } from './health-probe.ts';
import { canBind, type PortPool } from './port-pool.ts';
import type { Session } from './session.ts';
import { exitMessage, label, timeoutMessage } from './session-messages.ts';
import { removeStill, stillDirBeside, stillEnvironment } from './still-files.ts';
import type { ViewerTickets } from '../auth/viewer-tickets.ts';
import type { ServiceSandbox } from '../runners/service-sandbox.ts';
import type { SessionLogger } from './types.ts';
import { H264_ENCODER_ENV, type H264Choice } from '../../protocol/h264-encoder.ts';

/** What the runtime needs from the manager. */
export interface RuntimeContext {
  publicHost: string;
  appCwd?: string;
  logDir: string;
  readyPollMs: number;
  pool: PortPool;
  logger: SessionLogger;
  /** Signs the tickets of applications (their secret at launch, the health probe's own ticket). */
  tickets(): ViewerTickets;
  /** Origins whose pages may connect to applications. */
  viewerOrigins: string[];
  isStopped(): boolean;
  /** Ends a session (an idle one, one past its lifetime, one whose program quit). */
  end(id: string): Promise<void>;
  /** Stops what is left of a process group in the background (stop() waits for it). */
  stopLater(pgid: number): void;
  /** Finds the machine's H.264 encoder; asked once, on the first H.264 launch. */
  probeH264(): Promise<H264Choice>;
  /** Makes each session's control groups and gives its program's sandbox what it needs. */
  sandbox: ServiceSandbox;
}

export interface SessionRuntime {
  /** Allocates ports, spawns the application and starts watching for readiness. */
  launch(entry: Session): Promise<void>;
  /** Asks a starting application until it is ready, exits, or runs out of start-up time. */
  watchReadiness(entry: Session, announced?: Promise<void>): Promise<void>;
  /** One round of checks over the ready sessions. */
  tick(entries: Iterable<Session>): void;
}

/** How often one session is started again after losing a port to another program. */
const MAX_PORT_RETRIES = 2;

async function portsFree(ports: { signaling: number; media: number }): Promise<boolean> {
  return (await canBind(ports.signaling, 'tcp')) && (await canBind(ports.media, 'udp'));
}

/** Builds the runtime over the manager's context. */
export function createSessionRuntime(context: RuntimeContext): SessionRuntime {
  let h264Choice: Promise<H264Choice> | undefined;
  /** The machine's H.264 encoder, found once for every H.264 session of the service, and logged then. */
  function h264Encoder(): Promise<H264Choice> {
    h264Choice ??= context.probeH264().then((choice) => {
      context.logger.info({ encoder: choice.encoder }, `H.264 sessions: ${choice.reason}`);
      return choice;
    });
    return h264Choice;
  }

  async function launch(entry: Session): Promise<void> {
    const { record, request } = entry;
    const attempt = entry.start();
    if (attempt === undefined) return;
    const codec = request.profile.settings.codec ?? 'vp8';
    // Awaited before the ports are taken: the check below also covers a session ended meanwhile.
    const h264 = codec === 'h264' ? (await h264Encoder()).encoder : undefined;
    const ports = await context.pool.allocate();
    if (entry.phase !== 'starting') return context.pool.release(ports);
    if (!ports)
      return void entry.fail(`No free network port for ${label(request)}; try again when a session ends`);
    let announced: Promise<void>;
    try {
      const environment = {
        STREAMGATE_ALLOWED_ORIGINS: context.viewerOrigins.join(','),
        // Requests saved by an older service lack the setting.
        STREAMGATE_MAX_VIEWERS: String(request.profile.settings.maxViewers ?? 8),
        STREAMGATE_CODEC: codec,
        ...(h264 ? { [H264_ENCODER_ENV]: h264 } : {}),
        // Its recent still (still-files.ts), removed below when the application exits.
        ...stillEnvironment(stillDirBeside(context.logDir), record.id),
      };
      // Its control groups, made afresh for each start (the limits hold from its first process on).
      const group = context.sandbox.group(record.id, request.profile.settings.limits);
      const seccomp = context.sandbox.seccomp;
      const child = await launchApplication(
        {
          sessionId: record.id,
          request,
          ports,
          host: context.publicHost,
          environment,
          secret: context.tickets().secretOf(record.id),
          ...(group && seccomp ? { sandbox: { group, seccomp } } : {}),
        },
        { logDir: context.logDir, cwd: context.appCwd },
      );
      announced = announcedReady(child);
      const pid = child.pid as number;
      entry.launched(ports, pid, startTicks(pid));
      child.once('exit', (code, signal) => void onExit(entry, attempt, code, signal));
      child.once('exit', () => removeStill(stillDirBeside(context.logDir), record.id));
    } catch (error) {
      context.logger.error(
        { sessionId: record.id, err: (error as Error).message },
        'Could not start the application',
      );
      context.pool.release(ports);
      return void entry.fail(`${label(request)} could not be started`);
    }
    if (entry.phase !== 'starting') return;
    void watchReadiness(entry, announced);
  }

  /**
   * An application that exits before it is ready fails its session, unless another program now holds
   * one of its ports: it lost the race for a port between our bind test and its own bind (the port
   * ranges usually lie among the system's ephemeral ports). Then it is started again on other ports.
   */
  async function onExit(
    entry: Session,
    attempt: number,
    code: number | null,
    signal: NodeJS.Signals | null,
  ): Promise<void> {
    const { record, request } = entry;
    if (entry.attempt !== attempt) return;
    if (entry.phase === 'ready') {
      // A program that exits on its own without an error (the person quit it) ends its session.
      if (code === 0) {
        context.logger.info({ sessionId: record.id }, `${label(request)} exited; its session ends`);
        return context.end(record.id);
      }
      const last = await lastLogLine(context.logDir, record.id);
      return void entry.fail(exitMessage(request, code, signal, false, last));
    }
    if (entry.phase !== 'starting') return;
    const ports = record.ports;
    const retry = ports !== undefined && entry.portRetries < MAX_PORT_RETRIES && !(await portsFree(ports));
    if (entry.phase !== 'starting' || entry.attempt !== attempt) return;
    if (!retry) {
      const last = await lastLogLine(context.logDir, record.id);
      return void entry.fail(exitMessage(request, code, signal, true, last));
    }
    context.logger.warn(
      { sessionId: record.id, ports },
      `Another program took a port of ${label(request)} before it could bind it; starting it again on other ports`,
    );
    const held = entry.relaunch();
    if (held.pid !== undefined) context.stopLater(held.pid);
    context.pool.release(held.ports);
    entry.launching = launch(entry);
  }

  /**
   * Probes until ready; between probes it waits `readyPollMs`, or less when the application `announced` that
   * it is ready (the probe still decides: CONTRACT section 11).
   */
  async function watchReadiness(entry: Session, announced?: Promise<void>): Promise<void> {
    const { record, request } = entry;
    let signal: Promise<void> | undefined = announced?.then(() => {
      signal = undefined;
    });
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
        return void entry.fail(`${label(request)} exited before it was ready`);
      const health = await probeHealth(context.publicHost, record.ports.signaling, 1_000);
      if (entry.phase !== 'starting' || entry.attempt !== attempt) return;
      if (health.ok) return void entry.ready();
      if (Date.now() >= deadline) return void entry.fail(timeoutMessage(request));
      await (signal ? Promise.race([sleep(context.readyPollMs), signal]) : sleep(context.readyPollMs));
    }
  }

  /** Lifetime, idle time and health of one ready session. */
  async function check(entry: Session): Promise<void> {
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
      return void entry.fail(`${label(request)} exited`);
    }
    if (entry.probing || !record.ports) return;
    entry.probing = true;
    const port = record.ports.signaling;
    // Only a ticket holder hears the viewer count that idle time is measured by.
    const health = await context
      .tickets()
      .issue(record.id, 'watch', 30)
      .then(({ ticket }) => probeHealth(context.publicHost, port, 1_000, ticket))
      .finally(() => {
        entry.probing = false;
      });
    if (entry.phase !== 'ready') return;
    const now = Date.now();
    if (!health.ok) {
      entry.unhealthySince ??= now;
      if (now - entry.unhealthySince >= settings.startupTimeoutMs)
        entry.fail(`${label(request)} stopped answering`);
      return;
    }
    entry.unhealthySince = undefined;
    // An application that does not report viewers is never taken for idle, nor is a warm one.
    if (health.viewers === undefined || entry.warm) return;
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

  function tick(entries: Iterable<Session>): void {
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
