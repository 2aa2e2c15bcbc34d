/**
 * What the connection check needs from the browser and the service, handed in so that its steps are plain
 * functions that tests drive with fakes: the API, fetch (for the door, which answers SDP, not JSON), the
 * peer connection and a clock.
 */
import type { DoorOptions, ViewerTicket } from '../../../player';
import type { Application, ListEnvelope, Profile, Session, StreamRequest } from '../../../lib/api-client';
import type { VersionInfo } from '../../../lib/versions';

/** The service's API as the check uses it. */
export interface CheckApi {
  /** The bases the API is asked at (resolved, without a trailing slash), for the sentences. */
  catalogUrl: string;
  streamUrl: string;
  getApps(signal?: AbortSignal): Promise<ListEnvelope<Application>>;
  getSessions(signal?: AbortSignal): Promise<Session[]>;
  getVersions(app: string, signal?: AbortSignal): Promise<VersionInfo[]>;
  getProfiles(app: string, version: string, signal?: AbortSignal): Promise<Profile[]>;
  createSession(body: StreamRequest): Promise<Session>;
  getSession(id: string, signal?: AbortSignal): Promise<Session>;
  deleteSession(id: string): Promise<void>;
  viewerTicket(id: string, scope: 'control' | 'watch'): Promise<ViewerTicket | undefined>;
  doorOf(id: string): DoorOptions;
  /** Ids of the sessions this browser started, newest first: a ready one of these is tested first. */
  startedHere(): string[];
}

/** Time, injected: the real one in the page, fake timers in tests. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
  wait(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Everything a run of the check uses. */
export interface CheckDeps {
  api: CheckApi;
  fetch: typeof fetch;
  createPeerConnection: (config: RTCConfiguration) => RTCPeerConnection;
  clock: Clock;
  /** Where the first frame plays: a small muted video on the page. */
  video: HTMLVideoElement;
}

/** The clock of `setTimeout` and `Date.now()` (which fake timers replace in tests). */
export const timerClock: Clock = {
  now: () => Date.now(),
  wait: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/**
 * `work` within `ms` of the clock, or the failure `late()`: the work's own signal aborts when time is up, when
 * `signal` aborts, and once it is done, so that nothing of it outlives the step.
 */
export async function within<T>(
  clock: Clock,
  ms: number,
  work: (signal: AbortSignal) => Promise<T>,
  late: () => Error,
  signal?: AbortSignal,
): Promise<T> {
  signal?.throwIfAborted();
  const inner = new AbortController();
  const stop = () => inner.abort(signal?.reason);
  signal?.addEventListener('abort', stop, { once: true });
  try {
    return await Promise.race([
      work(inner.signal),
      clock.wait(ms, inner.signal).then(() => {
        throw late();
      }),
    ]);
  } finally {
    signal?.removeEventListener('abort', stop);
    inner.abort();
  }
}
