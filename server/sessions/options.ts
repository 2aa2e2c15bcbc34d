/** The manager's options, their defaults and their checks. */
import type { ViewerTickets } from '../auth/viewer-tickets.ts';
import type { WarmTarget } from '../catalog/queries.ts';
import type { Runner } from '../runners/runner.ts';

export interface SessionManagerOptions {
  dataDir: string;
  /**
   * Where the sessions' applications run (runners/runner.ts): built by the service's composition root (main.ts),
   * local or Slurm, with its own settings; its slots are the GPUs the queue grants.
   */
  runner: Runner;
  queueLimit: number;
  /** Where an application is asked for its health when its runner placed it nowhere else (STREAMGATE_PUBLIC_HOST). */
  publicHost: string;
  /** How long POST /stream waits for readiness before answering 202. */
  readyWaitMs: number;
  /** A failed session answers 410 this long, then 404. */
  failedRetentionMs: number;
  /** How often a starting application is asked whether it is ready (default 20 ms). */
  readyPollMs?: number;
  /** How often a ready application is asked for its viewers and checked for lifetime (default 2 s). */
  healthPollMs?: number;
  /** Retry-After given with QueueFullError (default 15 s). */
  retryAfterSeconds?: number;
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
}

/** The options with every default filled in. */
export type ResolvedOptions = Required<Omit<SessionManagerOptions, 'tickets'>> &
  Pick<SessionManagerOptions, 'tickets'>;

/** Throws one clear message for a setting that cannot work (the service stops at start-up with it). */
export function resolveOptions(options: SessionManagerOptions): ResolvedOptions {
  if (!Number.isInteger(options.queueLimit) || options.queueLimit < 0) {
    throw new Error(`The queue limit must be a whole number of at least 0, not ${options.queueLimit}.`);
  }
  const share = options.userGpuShare;
  if (share != null && (!Number.isInteger(share) || share < 1 || share > 100)) {
    throw new Error(`A user's share of the GPUs must be a whole percentage from 1 to 100, not ${share}.`);
  }
  return {
    // A starting application is asked often: the wait for the next probe adds half of this to a launch on average.
    readyPollMs: 20,
    healthPollMs: 2_000,
    retryAfterSeconds: 15,
    viewerOrigins: [],
    warm: [],
    userGpuShare: null,
    ...options,
  };
}
