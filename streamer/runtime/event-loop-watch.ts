/**
 * Watches an application's event loop. Everything a viewer or the service asks of an application (/health,
 * offers, data channels, the encoder's packets) waits while one piece of JavaScript runs: a loop that runs for
 * seconds silences the session, which a log line then explains. A timer is due every half second; when one
 * comes a second or more late, the loop was held up that long, and a line says so.
 *
 * Cheap on purpose: two timer wake-ups a second (microseconds each, far below 0.5% of a core). The line comes
 * once the loop runs again: a loop that never ends says nothing here, but its silence shows in /health.
 */

/** How often the timer is due. */
export const WATCH_INTERVAL_MS = 500;
/** A delay at least this long is logged. */
export const BLOCKED_MS = 1_000;

/** Starts the watch; returns the function that stops it. `now` in milliseconds, injectable for tests. */
export function watchEventLoop(
  log: (line: string) => void,
  now: () => number = () => performance.now(),
): () => void {
  let due = now() + WATCH_INTERVAL_MS;
  const timer = setInterval(() => {
    const at = now();
    const late = at - due;
    if (late >= BLOCKED_MS) {
      log(
        `the event loop was held up for ${(late / 1000).toFixed(1)} s: viewers and /health waited meanwhile`,
      );
    }
    due = at + WATCH_INTERVAL_MS;
  }, WATCH_INTERVAL_MS);
  // The watch alone is no reason for the process to stay.
  timer.unref();
  return () => clearInterval(timer);
}
