/**
 * The display host's promise that a ready session streams: the capture sends a frame at least once a second
 * (its idle refresh) and the encoder turns each into packets, so a stream whose packet count stands still for
 * long is broken (a capture or an encoder that stopped without a word, or an encoder that never gave a
 * keyframe). Such a session would otherwise stay ready for ever while every viewer waits for video; the host
 * fails it instead, with a sentence the service shows.
 */

/** How long the stream may send nothing before the session fails. */
export const PICTURE_STALL_MS = 10_000;

export class PictureWatch {
  private last: number;
  private since: number;
  private paused = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    /** Packets the stream has sent so far (the fan-out's count). */
    private readonly sent: () => number,
    /** Called once, when nothing has been sent for `limitMs`. */
    private readonly stalled: (reason: string) => void,
    private readonly limitMs = PICTURE_STALL_MS,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.last = sent();
    this.since = now();
    this.timer = setInterval(() => this.check(), Math.min(1000, limitMs / 4));
    this.timer.unref();
  }

  /** Nothing is expected for a while from now on (the encoder restarts at a new size): the count starts again. */
  reset(): void {
    this.last = this.sent();
    this.since = this.now();
  }

  /** Nothing is expected until `resume` (the encoder rests while nobody watches). */
  pause(): void {
    this.paused = true;
  }

  /** Expects pictures again, counting from now. */
  resume(): void {
    this.paused = false;
    this.reset();
  }

  close(): void {
    clearInterval(this.timer);
  }

  private check(): void {
    if (this.paused) return;
    const sent = this.sent();
    const now = this.now();
    if (sent !== this.last) {
      this.last = sent;
      this.since = now;
      return;
    }
    if (now - this.since < this.limitMs) return;
    this.close();
    this.stalled(`no picture was encoded for ${Math.round(this.limitMs / 1000)} s`);
  }
}
