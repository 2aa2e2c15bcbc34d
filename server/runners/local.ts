/**
 * The local runner: each session's application is a child process group of this machine, in its sandbox
 * (CONTRACT §17), on ports of the service's range. It owns those ports, the processes and their control
 * groups, the H.264 encoder choice of this machine, and the logs and stills of its applications.
 */
import { announcedReady, lastLogLine, launchApplication, tidyLogs } from './local-runner.ts';
import { findSessionProcesses, isAlive, isSessionProcess, startTicks, stopGroup } from './process-group.ts';
import type { ServiceSandbox } from './service-sandbox.ts';
import type {
  Recovery,
  SavedRun,
  RunHandle,
  RunObserver,
  Runner,
  RunSpec,
  SessionLogger,
  SessionRequest,
} from './runner.ts';
import { canBind, noteEphemeralPorts, PortPool, type SessionPorts } from './port-pool.ts';
import { label } from '../catalog/queries.ts';
import { removeStill, stillDirBeside, stillEnvironment } from './still-files.ts';
import { H264_ENCODER_ENV, type H264Choice } from '../../protocol/h264-encoder.ts';
import { launchEnvironment } from '../../protocol/launch.ts';

export interface LocalRunnerOptions {
  /** Address the applications bind and advertise. */
  publicHost: string;
  portRange: { first: number; last: number };
  /** Sessions that may run at once: the machine's GPUs. */
  capacity: number;
  logDir: string;
  /** Working directory of the applications (default: the repository root). */
  appCwd?: string;
  /** SIGTERM, then SIGKILL after this. */
  stopGraceMs: number;
  sandbox: ServiceSandbox;
  /** Finds the machine's H.264 encoder; asked once, on the first H.264 launch. */
  probeH264(): Promise<H264Choice>;
  logger: SessionLogger;
}

/** How often one session is started again after losing a port to another program. */
const MAX_PORT_RETRIES = 2;
/** Logs of applications are kept this long (a week), then removed when the service starts. */
const LOG_RETENTION_MS = 7 * 24 * 3_600_000;

/** What runs of one session: its ports and process group. */
interface Run {
  ports?: SessionPorts;
  pid?: number;
}

export class LocalRunner implements Runner {
  private readonly pool: PortPool;
  private readonly runs = new Map<string, Run>();
  private readonly stopping = new Set<Promise<void>>();
  private h264: Promise<H264Choice> | undefined;

  constructor(private readonly options: LocalRunnerOptions) {
    this.pool = new PortPool(options.portRange);
  }

  async open(): Promise<void> {
    await tidyLogs(this.options.logDir, LOG_RETENTION_MS).catch(() => undefined);
    noteEphemeralPorts(this.options.portRange, this.options.logger);
  }

  async sweep(isKnown: (sessionId: string) => boolean): Promise<void> {
    // What sessions that ended while no service watched them left behind (a host killed with its service).
    const swept = await this.options.sandbox.sweep(isKnown);
    if (swept.length > 0)
      this.options.logger.info({ sessions: swept }, 'Removed what ended sessions left running');
  }

  refuses(request: SessionRequest): string | undefined {
    return (request.launch && this.options.sandbox.refuses(request.app.name)) || undefined;
  }

  async start(spec: RunSpec, observer: RunObserver): Promise<void> {
    const run: Run = {};
    this.runs.set(spec.sessionId, run);
    const codec = spec.request.profile.settings.codec ?? 'vp8';
    const h264 = codec === 'h264' ? (await this.h264Encoder()).encoder : undefined;
    const environment = {
      ...spec.environment,
      ...launchEnvironment({ codec, audio: spec.request.profile.settings.audio }),
      ...(h264 ? { [H264_ENCODER_ENV]: h264 } : {}),
      // Its recent still (still-files.ts), removed when the application exits.
      ...stillEnvironment(stillDirBeside(this.options.logDir), spec.sessionId),
    };
    await this.spawn(spec, environment, run, observer, 0);
  }

  /** Spawns the application on free ports; started again on others when it lost one before it listened. */
  private async spawn(
    spec: RunSpec,
    environment: Record<string, string>,
    run: Run,
    observer: RunObserver,
    retries: number,
  ): Promise<void> {
    const { sessionId, request } = spec;
    const { sandbox, publicHost, logDir, appCwd } = this.options;
    const ports = await this.pool.allocate();
    if (!ports) throw new Error(`No free network port for ${label(request)}; try again when a session ends`);
    run.ports = ports;
    try {
      // Its control groups, made afresh for each start (the limits hold from its first process on).
      const group = sandbox.group(sessionId, request.profile.settings.limits);
      const seccomp = sandbox.seccomp;
      const child = await launchApplication(
        {
          sessionId,
          request,
          ports,
          host: publicHost,
          environment,
          secret: spec.secret,
          ...(group && seccomp ? { sandbox: { group, seccomp } } : {}),
        },
        { logDir, cwd: appCwd },
      );
      const pid = child.pid as number;
      run.pid = pid;
      let listening = false;
      const announced = announcedReady(child).then(() => {
        listening = true;
      });
      child.once('exit', (code, signal) => {
        removeStill(stillDirBeside(logDir), sessionId);
        void this.exited(spec, environment, run, observer, { retries, listening, code, signal });
      });
      observer.placed({ host: publicHost, ports, handle: { pid, startTicks: startTicks(pid) } }, announced);
    } catch (error) {
      this.options.logger.error(
        { sessionId, err: (error as Error).message },
        'Could not start the application',
      );
      this.pool.release(ports);
      run.ports = undefined;
      throw new Error(`${label(request)} could not be started`, { cause: error });
    }
  }

  /**
   * An application that exits before it listens lost the race for a port between our bind test and its own
   * bind when another program holds one of them now (the port ranges usually lie among the system's ephemeral
   * ports): it is started again on other ports. Any other exit is its session's to judge.
   */
  private async exited(
    spec: RunSpec,
    environment: Record<string, string>,
    run: Run,
    observer: RunObserver,
    how: { retries: number; listening: boolean; code: number | null; signal: NodeJS.Signals | null },
  ): Promise<void> {
    const { sessionId, request } = spec;
    const ports = run.ports;
    // Only for a session still starting: a ready one whose application died is failed, whoever holds its ports.
    const lostPort =
      observer.starting() &&
      !how.listening &&
      ports &&
      how.retries < MAX_PORT_RETRIES &&
      !(await portsFree(ports));
    // Stopped meanwhile: its session is ending or failed.
    if (this.runs.get(sessionId) !== run) return;
    if (lostPort) {
      this.options.logger.warn(
        { sessionId, ports },
        `Another program took a port of ${label(request)} before it could bind it; starting it again on other ports`,
      );
      this.stopInBackground(run.pid, async () => this.pool.release(ports));
      run.pid = run.ports = undefined;
      try {
        return await this.spawn(spec, environment, run, observer, how.retries + 1);
      } catch (error) {
        return observer.exited({ code: null, signal: null, lastWords: (error as Error).message });
      }
    }
    const lastWords = await lastLogLine(this.options.logDir, sessionId);
    observer.exited({ code: how.code, signal: how.signal, lastWords });
  }

  stop(sessionId: string, handle: RunHandle | undefined): Promise<void> {
    const run = this.runs.get(sessionId);
    this.runs.delete(sessionId);
    const pid = run?.pid ?? handle?.pid;
    return this.stopInBackground(pid, async () => {
      // Its process group first, then whatever it left in its control groups (an orphaned X server, a setsid child).
      await this.options.sandbox.release(sessionId);
      this.pool.release(run?.ports);
      // An application adopted after a restart is no child of this service: its still is removed here.
      if (pid !== undefined) removeStill(stillDirBeside(this.options.logDir), sessionId);
    });
  }

  isRunning(handle: RunHandle): boolean {
    return handle.pid !== undefined && isAlive(handle.pid);
  }

  recover(sessionId: string, saved: SavedRun): Recovery {
    let { pid, startTicks: ticks } = saved.handle;
    if (pid === undefined) {
      // The service may have died between starting the application and saving its pid.
      const [found] = saved.started ? [] : findSessionProcesses(sessionId);
      if (found === undefined) return { kind: 'absent' };
      if (!saved.ports) {
        this.stopInBackground(found);
        return { kind: 'absent' };
      }
      pid = found;
      ticks = startTicks(found);
    }
    if (!saved.ports) return { kind: 'absent' };
    // Neither the ports (never claimed) nor the pid (another process's now) are this session's to give back.
    if (!isSessionProcess(pid, sessionId, ticks))
      return { kind: 'lost', reason: 'stopped while the service was down' };
    if (!this.pool.claim(saved.ports)) {
      // Only a damaged state file gives two sessions one port; the application is ours, so it is stopped.
      this.stopInBackground(pid);
      return { kind: 'lost', reason: 'could not keep its network ports after a restart' };
    }
    this.runs.set(sessionId, { ports: saved.ports, pid });
    return { kind: 'running', handle: { pid, startTicks: ticks } };
  }

  slots(): number {
    return this.options.capacity;
  }

  async close(): Promise<void> {
    await Promise.all([...this.stopping]);
  }

  /** The machine's H.264 encoder, found once for every H.264 session of the service, and logged then. */
  private h264Encoder(): Promise<H264Choice> {
    this.h264 ??= this.options.probeH264().then((choice) => {
      this.options.logger.info({ encoder: choice.encoder }, `H.264 sessions: ${choice.reason}`);
      return choice;
    });
    return this.h264;
  }

  /** Stops a process group (if any), then runs `then`; `close()` waits for both. */
  private stopInBackground(pgid: number | undefined, then?: () => Promise<void>): Promise<void> {
    const { stopGraceMs } = this.options;
    const stopped = pgid === undefined ? Promise.resolve() : stopGroup(pgid, stopGraceMs);
    const promise = then ? stopped.then(then) : stopped;
    this.stopping.add(promise);
    void promise.finally(() => this.stopping.delete(promise));
    return promise;
  }
}

async function portsFree(ports: SessionPorts): Promise<boolean> {
  return (await canBind(ports.signaling, 'tcp')) && (await canBind(ports.media, 'udp'));
}
