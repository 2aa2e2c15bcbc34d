/**
 * The seam between the HTTP layer (routes, auth, catalog) and the session machinery
 * (queue, ports, runners, durable state). Routes resolve the catalog and check ownership;
 * the manager owns every process and port.
 */

/** How a version is started. Absent: the sample streaming application (streamer/main.ts). */
export interface LaunchSpec {
  /** argv; `{signaling_port}`, `{media_port}`, `{host}`, `{session_id}` are replaced in each element. */
  command: string[];
  env?: Record<string, string>;
}

/** A profile's runtime settings (catalog key `settings`, every field optional there). */
export interface ProfileSettings {
  width: number;
  height: number;
  fps: number;
  maxWidth: number;
  maxHeight: number;
  /** Not answering on the signaling port within this time fails the session. */
  startupTimeoutMs: number;
  /** A session older than this is ended. */
  maxLifetimeMs: number;
  /** A session without a connected viewer for this long is ended. */
  idleTimeoutMs: number;
}

/** Everything the manager needs to start one session; built by the route from the catalog. */
export interface SessionRequest {
  owner: string;
  app: { id: string; name: string };
  version: string;
  profile: { id: string; name: string; settings: ProfileSettings };
  launch?: LaunchSpec;
  /** The POST body's `arguments`, passed to the application (`usd_stage_uri` among them). */
  arguments: Record<string, unknown>;
}

export type SessionState = 'pending' | 'ready' | 'failed';

export interface SessionRecord {
  id: string;
  owner: string;
  appId: string;
  appName: string;
  version: string;
  profileId: string;
  arguments: Record<string, unknown>;
  state: SessionState;
  /** Human-readable: "Waiting for a free GPU: 2 sessions ahead", "Starting USD Viewer 1.2.0", the failure reason. */
  message: string;
  createdAt: string;
  readyAt?: string;
  failedAt?: string;
  ports?: { signaling: number; media: number };
  pid?: number;
}

export interface SessionManagerOptions {
  dataDir: string;
  portRange: { first: number; last: number };
  capacity: number;
  queueLimit: number;
  /** Address the application binds and advertises (STREAMGATE_PUBLIC_HOST is used for routes). */
  publicHost: string;
  /** How long POST /stream waits for readiness before answering 202. */
  readyWaitMs: number;
  /** A failed session answers 410 this long, then 404. */
  failedRetentionMs: number;
  /** SIGTERM, then SIGKILL after this. */
  stopGraceMs: number;
  /** How often a starting application is asked whether it is ready (default 100 ms). */
  readyPollMs?: number;
  /** How often a ready application is asked for its viewers and checked for lifetime (default 2 s). */
  healthPollMs?: number;
  /** Retry-After given with QueueFullError (default 15 s). */
  retryAfterSeconds?: number;
  /** Working directory of applications (default: the repository root, where streamer/main.ts lives). */
  appCwd?: string;
}

/** Pino-compatible: the HTTP layer can pass its own logger. */
export interface SessionLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** Thrown by `create` when capacity and the queue are full; the route answers 503 with Retry-After. */
export class QueueFullError extends Error {
  constructor(public readonly retryAfterSeconds: number) {
    super('Every GPU is busy and the queue is full.');
  }
}

/**
 * Thrown by `create` when the state file holding the new session could not be written; the session
 * has been undone (no GPU, port or queue place is left taken). The route answers 503: the message is
 * a sentence a person can act on, and names no file; `cause` holds the system's error for the log.
 */
export class StateWriteError extends Error {
  constructor(cause: Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG'
        ? 'the disk is full'
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? 'the data directory is not writable'
          : 'the data directory cannot be written';
    super(`The service cannot save sessions right now (${why}); try again later.`, { cause });
    this.name = 'StateWriteError';
  }
}

export interface SessionCounts {
  pending: number;
  ready: number;
  failed: number;
  queued: number;
}

export interface SessionManager {
  /** Loads durable state, adopts applications still running, marks the dead ones failed. */
  start(): Promise<void>;
  /** Queues or starts a session; waits up to `readyWaitMs` for readiness. Throws QueueFullError. */
  create(request: SessionRequest): Promise<SessionRecord>;
  /** Pending, ready, or failed within its retention; undefined when unknown or ended. */
  get(id: string): SessionRecord | undefined;
  /** Sessions of `owner` (every session when owner is null), oldest first, failed ones included. */
  list(owner: string | null, offset: number, limit: number): { count: number; items: SessionRecord[] };
  /** Stops the application (SIGTERM, then SIGKILL), frees its ports; the session is gone. */
  end(id: string): Promise<void>;
  counts(): SessionCounts;
  /** Clean stop: ends every session and leaves no process behind. */
  stop(): Promise<void>;
}
