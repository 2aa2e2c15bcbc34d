/**
 * The seam between the HTTP layer (routes, auth, catalog) and the session machinery
 * (queue, ports, runners, durable state). Routes resolve the catalog and check ownership;
 * the manager owns every process and port.
 */
import type { ViewerTickets } from '../auth/viewer-tickets.ts';
import type { CatalogProfile } from '../catalog/model.ts';
import type { WarmTarget } from '../catalog/queries.ts';
import { DomainError } from '../errors.ts';
import type { IssuedTicket, TicketGrant, TicketScope } from '../../protocol/viewer-ticket.ts';
import type { H264Choice } from '../../protocol/h264-encoder.ts';
import type { ServiceSandbox } from '../runners/service-sandbox.ts';
import type { SessionRequest } from '../runners/runner.ts';
import type { components } from '../../api/schema.ts';

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
  /** Where its application runs, when a runner placed it somewhere other than the service's public host (a node). */
  host?: string;
  pid?: number;
  /** Its Slurm job, when the Slurm runner runs it. */
  job?: string;
  /** When a ready session ends at its lifetime (lifetime.ts); given in copies of the record only, never saved. */
  endsAt?: string;
  /** The latest `endsAt` an extension can reach; copies of the record only. */
  latestEndAt?: string;
  /** When a ready session with no viewer connected is ended for it, unless one connects; copies only. */
  idleEndsAt?: string;
}

/** Why a session ended (CONTRACT §22), as the contract names it: `end_cause` of an ended session. */
export type EndCause = NonNullable<components['schemas']['Session']['end_cause']>;

/** A session that ended or failed, as the list of past sessions shows it. */
export interface EndedSession {
  id: string;
  owner: string;
  appId: string;
  version: string;
  profileId: string;
  createdAt: string;
  endedAt: string;
  cause: EndCause;
  /** Why it ended, in words: "Ended by alice", the failure's reason ... */
  reason: string;
  /** Who ended it, when a person did. */
  endedBy?: string;
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
  /** How often a starting application is asked whether it is ready (default 20 ms). */
  readyPollMs?: number;
  /** How often a ready application is asked for its viewers and checked for lifetime (default 2 s). */
  healthPollMs?: number;
  /** Retry-After given with QueueFullError (default 15 s). */
  retryAfterSeconds?: number;
  /**
   * Finds the machine's H.264 encoder, once for the service, on its first H.264 session (default: its GPU,
   * driver and ffmpeg, protocol/h264-encoder.ts); each H.264 application is told the answer.
   */
  probeH264?: () => Promise<H264Choice>;
  /** Working directory of applications (default: the repository root, where streamer/sample/main.ts lives). */
  appCwd?: string;
  /** Signs viewer tickets; by default the key kept in `dataDir`. */
  tickets?: ViewerTickets;
  /** Origins whose pages may connect to applications (the portal's own and STREAMGATE_CORS_ORIGINS). */
  viewerOrigins?: string[];
  /** Launches kept warm (CONTRACT §16), from the catalog's `warm` settings; none by default. */
  warm?: WarmTarget[];
  /**
   * The percentage of the GPUs one user's sessions may hold at once, rounded up (STREAMGATE_USER_GPU_SHARE,
   * fair-share.ts); null or absent: no share, the queue is first in, first out for everyone.
   */
  userGpuShare?: number | null;
  /**
   * Where programs run (CONTRACT §17): sandboxed, or refused with a sentence (`ServiceSandbox.prepare`).
   * Tests of scheduling pass `ServiceSandbox.unsandboxedForTests()`.
   */
  sandbox: ServiceSandbox;
}

/** Thrown by `create` when capacity and the queue are full: 503 with Retry-After. */
export class QueueFullError extends DomainError {
  override name = 'QueueFullError';
  constructor(public readonly retryAfterSeconds: number) {
    super(503, 'Every GPU is busy and the queue is full; try again in a little while.', {
      'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))),
    });
  }
}

/** A disk that is full or read-only is not fixed in seconds; callers are asked to wait a while. */
const STATE_WRITE_RETRY_SECONDS = 30;

/**
 * Thrown by `create` when the state file holding the new session could not be written; the session
 * has been undone (no GPU, port or queue place is left taken). A 503: the message is a sentence a
 * person can act on, and names no file; `cause` holds the system's error, for the log only.
 */
export class StateWriteError extends DomainError {
  override name = 'StateWriteError';
  constructor(cause: Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG'
        ? 'the disk is full'
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? 'the data directory is not writable'
          : 'the data directory cannot be written';
    super(
      503,
      `The service cannot save sessions right now (${why}); try again later.`,
      { 'retry-after': String(STATE_WRITE_RETRY_SECONDS) },
      { cause },
    );
  }
}

export interface SessionCounts {
  pending: number;
  ready: number;
  failed: number;
  queued: number;
  /** Warm applications, starting or ready, not yet claimed (not among the others). */
  warm: number;
}

/** GET /admin/capacity (CONTRACT §16): what holds the GPUs, and what waits for them. */
export interface CapacityReport {
  capacity: number;
  /** People's sessions holding a GPU: starting, ready or ending. */
  running: number;
  /** Warm applications holding a GPU. */
  warm: number;
  queued: number;
  by_profile: { profile: string; running: number; queued: number; warm: number; warm_target: number }[];
  cluster?: components['schemas']['Cluster'];
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
  /**
   * Stops the application (SIGTERM, then SIGKILL), frees its ports; the session is gone. `by`: the person who
   * asked, which its past record keeps; absent, the service ended it.
   */
  end(id: string, by?: string): Promise<void>;
  /** Sessions of `owner` (everyone's when null) that ended or failed in the last 30 days at least, newest first. */
  endedSessions(
    owner: string | null,
    offset: number,
    limit: number,
  ): { count: number; items: EndedSession[] };
  /** Calls `listener` with each session that ends or fails from now on (warm ones nobody claimed aside). */
  onEnded(listener: (ended: EndedSession) => void): void;
  /** Sessions of `owner` pending or ready (failed ones not counted), for the per-user limit; one lookup. */
  activeCount(owner: string): number;
  /**
   * A viewer ticket for a pending or ready session; undefined when unknown. Its life is `ttlS`, or by
   * default a short one for control and the rest of the session's lifetime for watch, never past the latter.
   * `name`: the person who asked, whom a control ticket names to the session's other viewers; a watch ticket
   * names nobody.
   */
  issueTicket(
    id: string,
    scope: TicketScope,
    ttlS?: number,
    name?: string,
  ): Promise<IssuedTicket | undefined>;
  /**
   * What a viewer ticket of the pending or ready session `id` grants, checked with its secret and not used up
   * (the application uses up a control ticket when it connects its viewer; the files routes only look at it);
   * null when it grants nothing or the session is unknown, failed or ending.
   */
  checkTicket(id: string, ticket: string): Promise<TicketGrant | null>;
  /**
   * The service's files ticket for one call to the application of the pending or ready session `id`
   * (protocol/files.ts); undefined when the session is unknown, failed or ending.
   */
  filesTicket(id: string): Promise<string | undefined>;
  /**
   * Stops the sharing of a pending or ready session: every watch ticket issued so far stops working, and its
   * application drops the viewers they made (at once when it is ready, else once it is). Undefined when the
   * session is unknown or ending; throws a 503 when a ready application could not be told (each try tells it
   * again).
   */
  stopSharing(id: string): Promise<{ watchersDropped: number } | undefined>;
  /**
   * A ready session runs `minutes` longer, up to its profile's maximum lifetime (sessions/lifetime.ts); on disk
   * before it resolves with the record. Undefined when the session is unknown; `refused` says why it cannot be
   * extended (it runs to its maximum already); throws a 409 when it is not ready or its runner refuses.
   */
  extend(id: string, minutes: number): Promise<SessionRecord | { refused: string } | undefined>;
  counts(): SessionCounts;
  /** The capacity report; on a cluster, with whether each of `profiles` can run there. */
  capacity(profiles?: readonly CatalogProfile[]): CapacityReport;
  /** Clean stop: ends every session and leaves no process behind. */
  stop(): Promise<void>;
}
