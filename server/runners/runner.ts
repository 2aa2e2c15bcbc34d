/**
 * Where a session's application runs. A runner starts it, tells its session where viewers reach it and
 * when it ends, stops it, finds it again after a restart of the service, and says how many may run at once.
 * The session (sessions/session.ts) decides everything else: readiness, health, idle time, lifetime.
 *
 * One runner serves a service: `local` (local.ts: child processes of this machine, each in its sandbox) or
 * `slurm` (slurm.ts: a batch job per session, CONTRACT §18); a Kubernetes runner (a pod per session) is to come
 * on the same interface (docs/runners.md).
 */
import type { components } from '../../api/schema.ts';
import type { SessionPorts } from './port-pool.ts';
import type { LaunchTarget } from '../catalog/model.ts';

/** Everything a session needs to start one session: what the catalog resolved, for whom, with what. */
export interface SessionRequest extends LaunchTarget {
  owner: string;
  /**
   * Asked by an admin (or the anonymous caller of a set-up without tokens): not held to a user's share of the
   * GPUs (sessions/fair-share.ts).
   */
  admin?: boolean;
  /** The POST body's `arguments`, passed to the application (`usd_stage_uri` among them). */
  arguments: Record<string, unknown>;
}

/** Pino-compatible: the HTTP layer can pass its own logger. */
export interface SessionLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** What a runner is given to start one session's application. */
export interface RunSpec {
  sessionId: string;
  request: SessionRequest;
  /** The session's viewer secret, which signs its tickets: handed to the application on a pipe, never in its environment. */
  secret: Uint8Array;
  /** Added to the application's environment: allowed origins, viewer limit, codec. */
  environment: Record<string, string>;
}

/**
 * How the runner finds an application again: saved with its session. A local application is its process
 * group (`pid`) and its start time (`startTicks`, so that a reused pid is never taken for it); a job or a pod
 * is its name, which is the session's id.
 */
export interface RunHandle {
  pid?: number;
  startTicks?: string;
  /** A scheduler's job id (the Slurm runner). */
  job?: string;
}

/** Where an application runs and is reached: the session's routes name `host` and `ports`. */
export interface Placement {
  host: string;
  ports: SessionPorts;
  handle: RunHandle;
}

/** How an application ended: its exit (code or signal), and the last line it wrote, for people to read. */
export interface RunExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  lastWords: string;
  /** What ended it, in words that follow the application's name ("was ended: its node failed"), when not an exit. */
  reason?: string;
}

/** What a runner tells the session it runs an application for. */
export interface RunObserver {
  /**
   * The application runs at `placement`. Again with a new placement when the runner started it once more
   * (a local application that lost a port to another program). `announced` resolves when it says it
   * listens: a hint to ask it sooner, the session's probe still decides (CONTRACT §11).
   */
  placed(placement: Placement, announced: Promise<void>): void;
  /** The application ended; nothing of it runs any more. */
  exited(exit: RunExit): void;
  /** It waits for the place to run it (a job in a scheduler's queue): `why` says so, in words people read. */
  waiting(why: string): void;
  /**
   * Whether its session still waits for the application to be ready: only then may a runner start it again
   * after an end that was not the application's own doing (a port another program took first).
   */
  starting(): boolean;
}

/** What a runner found of a saved session's application after a restart of the service. */
export type Recovery =
  /** Still running where it was: adopt it. */
  | { kind: 'running'; handle: RunHandle }
  /** Never started (it was waiting): `stray` is a start that the service died before saving, stopped by the runner. */
  | { kind: 'absent' }
  /** It ran, and is gone (or cannot be kept): `reason` follows the application's name in its session's message. */
  | { kind: 'lost'; reason: string };

/** What a session saved of its application: how to find it, where it was reached, whether it had been started. */
export interface SavedRun {
  handle: RunHandle;
  ports?: SessionPorts;
  /** It was ready: an application of it was known to run (a pending one may have been spawned unsaved). */
  started: boolean;
}

/** A cluster's nodes as its scheduler counts them: the contract's own shape (api/openapi.yaml, `Cluster`). */
export type ClusterNodes = Pick<components['schemas']['Cluster'], 'scheduler' | 'nodes'>;

/** One way of running sessions' applications. */
export interface Runner {
  /** Prepares what the runner needs before saved sessions are recovered (directories, what runs now). */
  open(): Promise<void>;
  /**
   * After the recovery: removes what sessions that ended while no service watched left behind (processes,
   * groups, jobs), saying in the log what it removed; `isKnown` tells the sessions that live on.
   */
  sweep(isKnown: (sessionId: string) => boolean): Promise<void>;
  /** Why this runner cannot start `request` at all, in one sentence (a 503); undefined when it can. */
  refuses(request: SessionRequest): string | undefined;
  /** Starts the application: `observer` hears where it runs and when it ends. Rejects with words people read. */
  start(spec: RunSpec, observer: RunObserver): Promise<void>;
  /** Stops the application of a session, whatever it left behind included; resolves once nothing of it runs. */
  stop(sessionId: string, handle: RunHandle | undefined): Promise<void>;
  /**
   * Tells `observer` of an application adopted after a restart as of a new one, where the runner can (a job's
   * placement and end); without it, an adopted session notices an end by `isRunning` alone.
   */
  watch?(sessionId: string, observer: RunObserver, request: SessionRequest): void;
  /**
   * Lets an application whose time the runner bounds (a Slurm job's time limit) run `lifetimeMs` from its
   * start, for an extended session; runners that bound nothing leave it out (the session ends it on time).
   * Rejects with one sentence a person reads when the place it runs does not allow it.
   */
  extend?(sessionId: string, handle: RunHandle, lifetimeMs: number): Promise<void>;
  /** Whether an adopted application (no child of this service) still runs. */
  isRunning(handle: RunHandle): boolean;
  /** Finds a saved session's application after a restart of the service, from what `open()` saw (it may not wait). */
  recover(sessionId: string, saved: SavedRun): Recovery;
  /** Sessions that may hold a GPU at once: Infinity where a scheduler's queue is the queue. */
  slots(): number;
  /** The cluster as its scheduler counts it, for the capacity report (runners of a cluster). */
  cluster?(): ClusterNodes | undefined;
  /** Waits for the stops under way (the service is stopping). */
  close(): Promise<void>;
}
