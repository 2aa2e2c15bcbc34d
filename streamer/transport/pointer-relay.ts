/**
 * Where the pointer of the one in control is, for everyone else (protocol/people.ts `pointer`): at most
 * `rateHz` positions a second, the first of a movement at once and the last always, once the interval that
 * held it back is over, so that the others' pointer comes to rest where the controller's did.
 */
import { POINTER_RATE_HZ, type PointerPayload } from '../../protocol/people.ts';

export class PointerRelay {
  private readonly intervalMs: number;
  /** Running while a position was sent less than an interval ago. */
  private timer: NodeJS.Timeout | null = null;
  /** The latest position held back by that interval. */
  private pending: PointerPayload | null = null;

  constructor(
    private readonly send: (at: PointerPayload) => void,
    rateHz = POINTER_RATE_HZ,
  ) {
    this.intervalMs = 1000 / rateHz;
  }

  /** The one in control moved its pointer to (x, y). */
  move(x: number, y: number): void {
    if (this.timer) {
      this.pending = { x, y };
      return;
    }
    this.send({ x, y });
    this.wait();
  }

  /** Control changed hands: a position held back was the previous controller's, and is dropped. */
  reset(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending = null;
  }

  private wait(): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      const last = this.pending;
      this.pending = null;
      if (!last) return;
      this.send(last);
      this.wait();
    }, this.intervalMs);
    this.timer.unref();
  }
}
