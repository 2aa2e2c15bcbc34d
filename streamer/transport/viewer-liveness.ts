/**
 * Whether a viewer that never said goodbye (no DELETE: a tab or a browser killed, a network gone) is still there.
 * Its peer connection goes silent, and the ICE agent would give it up only when its consent expires, after 30 s
 * (RFC 7675); meanwhile it holds a place, and a controller's place is the one its owner's next viewer needs.
 *
 * Anything heard from the viewer proves that it is there: RTCP on its tracks (a browser sends receiver reports
 * from its network thread about once a second, whatever its page's scripts do), a message on a data channel.
 * - Any viewer silent for the silence timeout (15 s) is gone: another WHEP client may send nothing but RTCP, and
 *   that as seldom as every 5 s.
 * - A viewer that has sent a keep-alive (the portal's player sends one a second, protocol/data-channels.ts) says it
 *   is never silent for long: silent for KEEP_ALIVE_TIMEOUT_MS, it is gone. Checked every LIVENESS_CHECK_MS, its
 *   place is free at most 4.25 s after the last packet it sent, within 5 s of its end; a network that drops every
 *   packet for two seconds, or a slow phone whose keep-alive comes a second late, leaves it in place.
 */

/** Silence that ends a viewer that sends keep-alives: four of them missed, and whatever RTCP came with them. */
export const KEEP_ALIVE_TIMEOUT_MS = 4000;

/** How often a viewer's silence is measured. */
export const LIVENESS_CHECK_MS = 250;

export class ViewerLiveness {
  /** How often `check` should be called. */
  readonly checkEveryMs: number;
  private lastHeardMs: number;
  private lastCheckMs: number;
  private keepsAlive = false;

  constructor(
    private readonly silenceTimeoutMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.checkEveryMs = Math.min(LIVENESS_CHECK_MS, silenceTimeoutMs / 3);
    this.lastHeardMs = this.lastCheckMs = now();
  }

  /** A packet came from the viewer. */
  heard(): void {
    this.lastHeardMs = this.now();
  }

  /** The viewer sent a keep-alive: from now on a short silence ends it. */
  keptAlive(): void {
    this.keepsAlive = true;
    this.heard();
  }

  /** The silence after which the viewer is gone. */
  get timeoutMs(): number {
    return this.keepsAlive ? Math.min(KEEP_ALIVE_TIMEOUT_MS, this.silenceTimeoutMs) : this.silenceTimeoutMs;
  }

  /** Called every `checkEveryMs`: whether the viewer has been silent for longer than it may be. */
  check(): boolean {
    const now = this.now();
    const heldUp = now - this.lastCheckMs - this.checkEveryMs;
    this.lastCheckMs = now;
    // Time the event loop was held up (an encoder's restart, a busy machine) is not the viewer's silence: what it
    // sent meanwhile is still queued behind this check.
    if (heldUp > this.checkEveryMs) this.lastHeardMs = Math.min(now, this.lastHeardMs + heldUp);
    return now - this.lastHeardMs > this.timeoutMs;
  }
}
