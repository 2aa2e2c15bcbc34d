/**
 * A session that a person is typing or pointing into weighs more on the machine's CPU than the sessions that only
 * draw, for a moment after each input. Every session has an equal weight (sandbox/cgroups.ts), and on a core that
 * busy sessions fill, a key waits at each of its hops (this host, the X server, the program, the X server, the
 * capture, the encoder, this host) until the scheduler comes back to its session: a key in a quiet terminal beside
 * three that scrolled without end took 89-100 ms (median) and 243-280 ms (p95), against 48-57 and 126-180 ms with
 * its session weighing eight times as much (bench/density.ts, by turns; docs/performance.md "Many sessions on one
 * machine"). The boost ends a second after the last input, so a session that draws on its own, unwatched or
 * watched only, takes no more than its equal share; input comes only from the viewer in control, and the program
 * stays within its own limit whatever its session weighs.
 */
import { performanceClock, type FrameClock } from './capture.ts';

/** How many times its equal share a session weighs while a person uses it. */
export const BOOST_FACTOR = 8;
/** How long after the last input the boost lasts: longer than the pause between a person's keys. */
export const BOOST_HOLD_MS = 1000;

export class InputBoost {
  private timer: { cancel(): void } | null = null;
  /** When the boost ends, unless more input comes. */
  private until = 0;

  constructor(
    /** Sets the session's weight: `factor` times its equal share. */
    private readonly weigh: (factor: number) => void,
    private readonly clock: FrameClock = performanceClock,
    private readonly holdMs = BOOST_HOLD_MS,
  ) {}

  /** A viewer's input arrived: the session weighs more from now, before the input is applied. */
  input(): void {
    this.until = this.clock.now() + this.holdMs;
    if (this.timer) return;
    this.weigh(BOOST_FACTOR);
    this.timer = this.clock.schedule(() => this.expire(), this.holdMs);
  }

  /** Back to an equal share, when the host closes while boosted. */
  close(): void {
    if (!this.timer) return;
    this.timer.cancel();
    this.timer = null;
    this.weigh(1);
  }

  /** One timer for the whole boost, not one per input (a moving pointer sends sixty a second). */
  private expire(): void {
    const left = this.until - this.clock.now();
    if (left > 0) {
      this.timer = this.clock.schedule(() => this.expire(), left);
      return;
    }
    this.timer = null;
    this.weigh(1);
  }
}
