/** Samples a peer connection's stats at an interval into a one-minute history. */
import { sampleStats, StatsHistory, type StatsCounters, type StatsSample } from './stats-sample';

/** Polls `getStats()` of the current peer and hands each sample to `onSample`. */
export class StatsSampler {
  private timer: ReturnType<typeof setInterval> | undefined;
  private counters: StatsCounters | undefined;
  /** Kept across reconnects, so that the charts show the gap rather than starting over. */
  readonly history = new StatsHistory();

  constructor(
    private readonly intervalMs: number,
    private readonly onSample: (sample: StatsSample) => void,
  ) {}

  /** Starts sampling `pc`, replacing any previous one. */
  start(pc: RTCPeerConnection): void {
    this.stop();
    this.timer = setInterval(async () => {
      try {
        const { sample, counters } = sampleStats(await pc.getStats(), this.counters, Date.now());
        this.counters = counters;
        this.history.push(sample);
        this.onSample(sample);
      } catch {
        // A closing peer may refuse getStats; the next sample comes from the next peer.
      }
    }, this.intervalMs);
  }

  /** Stops sampling; the history stays. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.counters = undefined;
  }
}
