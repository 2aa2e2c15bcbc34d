/** Defaults and checks for the manager's options. */
import type { SessionManagerOptions } from './types.ts';

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
