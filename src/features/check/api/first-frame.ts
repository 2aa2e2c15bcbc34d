/**
 * The last step: the portal's own player, watching through the door as a viewer would, must show a first frame
 * in time. It says how long that took and which way the media came (the statistics' path).
 */
import type { Session } from '../../../lib/api-client';
import { Player, type PlayerState, type StatsSample } from '../../../player';
import { within, type CheckDeps } from './check-deps';
import { StepFailure, type StepPass } from './check-report';

/** A first frame later than this fails the step. */
export const FRAME_TIMEOUT_MS = 15_000;

/** How long, after the first frame, the path may take to show in the statistics. */
export const PATH_WAIT_MS = 2_000;

const ADVICE =
  'The steps before passed, so the service and its relay answer: tell the administrator what this page ' +
  'says; the session’s application may not be sending video.';

/** What the player was doing when time ran out, in words. */
function stuck(state: PlayerState): string {
  if (state.kind === 'waiting-for-video') return 'the service answered, but no video arrived';
  return 'the connection was not made';
}

/** Plays `session` in `deps.video` until its first frame; disconnects on every way out. */
export async function firstFrame(deps: CheckDeps, session: Session, signal?: AbortSignal): Promise<StepPass> {
  let path: StatsSample['path'];
  let onPath: () => void = () => undefined;
  const player = new Player({
    video: deps.video,
    mode: 'watch',
    routes: session.routes,
    ticket: () => deps.api.viewerTicket(session.id, 'watch'),
    door: { ...deps.api.doorOf(session.id), mode: 'door' },
    createPeerConnection: deps.createPeerConnection,
    resize: { enabled: false },
    // One attempt: a failure is this step's answer, not something to retry.
    reconnect: { maxAttempts: 0 },
    // The step's own limit comes first, with its own words.
    connectTimeoutMs: FRAME_TIMEOUT_MS + 5_000,
    statsIntervalMs: 500,
  });
  const offStats = player.addEventListener('stats', (sample) => {
    if (!sample.path) return;
    path = sample.path;
    onPath();
  });
  const outcome = new Promise<PlayerState>((resolve) => {
    player.addEventListener('state', (state) => {
      if (state.kind === 'playing' || state.kind === 'failed' || state.kind === 'reconnecting')
        resolve(state);
    });
  });
  const started = deps.clock.now();
  try {
    player.connect();
    const state = await within(
      deps.clock,
      FRAME_TIMEOUT_MS,
      () => outcome,
      () =>
        new StepFailure(
          `No first frame within ${FRAME_TIMEOUT_MS / 1000} s: ${stuck(player.state)}.`,
          ADVICE,
        ),
      signal,
    );
    if (state.kind !== 'playing')
      throw new StepFailure(`No first frame: ${'reason' in state ? state.reason : state.kind}`, ADVICE);
    const took = ((deps.clock.now() - started) / 1000).toFixed(1);
    if (!path) {
      const known = new Promise<void>((resolve) => (onPath = resolve));
      await within(
        deps.clock,
        PATH_WAIT_MS,
        () => known,
        () => new Error('no path yet'),
        signal,
      ).catch(() => signal?.throwIfAborted());
    }
    return {
      detail: `The first frame arrived in ${took} s; path: ${path ?? 'not known (no statistics yet)'}.`,
    };
  } finally {
    offStats();
    player.disconnect();
  }
}
