/**
 * Whether the picture a video element shows still moves. The connection can look alive over a frozen picture:
 * an application that dropped this viewer (a stop of sharing) closes its side, and on a lossy network (a phone)
 * the close may never arrive, so ICE takes seconds more to notice. The frames say it first: the ones the element
 * presents (`requestVideoFrameCallback`), or where the browser has no such callback, the ones the peer
 * connection decoded (inbound-rtp `framesDecoded`, from the stats samples).
 */

/** Settings and callbacks of a watch. */
export interface FrameWatchOptions {
  /** How long the picture may stand still before it counts as stopped. */
  stallMs: number;
  /** The stats' sampling interval: a frame counted from a sample may be that much older. */
  sampleMs: number;
  /** The picture stopped; `since` is the `Date.now()` time of its last frame. */
  onStall(since: number): void;
  /** A frame came after a stall. */
  onResume(): void;
}

/** How often the watch looks at the time of the last frame. */
const CHECK_MS = 250;

/** The smallest video element the watch needs, so that it runs where the browser has no frame callbacks. */
type WatchedVideo = Pick<HTMLVideoElement, 'requestVideoFrameCallback' | 'cancelVideoFrameCallback'>;

/** Watches one element's frames from construction until `stop()`. */
export class FrameWatch {
  private lastFrameAt = Date.now();
  /** Frames decoded at the last sample, where samples are the source. */
  private decoded: number | undefined;
  /**
   * Whether a frame has been seen through the source at all: a browser that reports none (no callback, no
   * counter) is never judged, rather than judged frozen.
   */
  private seen = false;
  private stalled = false;
  private stopped = false;
  private handle: number | undefined;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly perFrame: boolean;

  constructor(
    private readonly video: WatchedVideo,
    private readonly options: FrameWatchOptions,
  ) {
    this.perFrame = typeof video.requestVideoFrameCallback === 'function';
    this.next();
    this.timer = setInterval(() => this.check(), CHECK_MS);
  }

  /** A stats sample's count of decoded frames: a count that moved on is a frame, where the element says none. */
  sampled(framesDecoded: number | undefined): void {
    if (this.perFrame || framesDecoded === undefined) return;
    if (this.decoded !== undefined && framesDecoded > this.decoded) this.frame();
    this.decoded = framesDecoded;
  }

  /** Ends the watch; no callback follows. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    if (this.handle !== undefined) this.video.cancelVideoFrameCallback?.(this.handle);
    this.handle = undefined;
  }

  private next() {
    if (!this.perFrame || this.stopped) return;
    this.handle = this.video.requestVideoFrameCallback(() => {
      this.frame();
      this.next();
    });
  }

  private frame() {
    if (this.stopped) return;
    this.seen = true;
    this.lastFrameAt = Date.now();
    if (!this.stalled) return;
    this.stalled = false;
    this.options.onResume();
  }

  private check() {
    const now = Date.now();
    // A hidden page is shown no frames; its clock starts again when it is seen.
    if (!this.seen || globalThis.document?.visibilityState === 'hidden') {
      if (!this.stalled) this.lastFrameAt = Math.max(this.lastFrameAt, now - CHECK_MS);
      return;
    }
    const limit = this.options.stallMs + (this.perFrame ? 0 : this.options.sampleMs);
    if (this.stalled || now - this.lastFrameAt <= limit) return;
    this.stalled = true;
    this.options.onStall(this.lastFrameAt);
  }
}
