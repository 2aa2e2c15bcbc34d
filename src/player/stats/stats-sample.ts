/**
 * Reduces two successive `RTCPeerConnection.getStats()` reports to one sample of what a person looks at:
 * fps, bitrate, resolution, codec, round trip, loss, jitter, decode time and the candidate type in use.
 */

/** One stats sample; fields are undefined where the browser does not report them yet. */
export interface StatsSample {
  /** `Date.now()` of the sample. */
  time: number;
  fps?: number;
  /** Received video bitrate in kbit/s. */
  bitrateKbps?: number;
  width?: number;
  height?: number;
  codec?: string;
  rttMs?: number;
  packetsLost?: number;
  /** Lost share of the packets expected so far, in % */
  packetLossPercent?: number;
  jitterMs?: number;
  /** Average decode time of one frame over the last interval, in ms. */
  decodeMs?: number;
  framesDecoded?: number;
  /** host, srflx, prflx or relay: how the remote side is reached. */
  candidateType?: string;
}

/** The counters a sample needs from the previous report. */
export interface StatsCounters {
  timestamp: number;
  bytesReceived: number;
  framesDecoded: number;
  totalDecodeTime: number;
}

type Report = Record<string, unknown>;

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Builds a sample from a report and the counters of the previous one; returns the counters for the next call. */
export function sampleStats(
  report: RTCStatsReport,
  previous: StatsCounters | undefined,
  now: number,
): { sample: StatsSample; counters?: StatsCounters } {
  const byId = new Map<string, Report>();
  report.forEach((value: Report, id: string) => byId.set(id, value));
  const all = [...byId.values()];
  const inbound = all.find((s) => s.type === 'inbound-rtp' && (s.kind ?? s.mediaType) === 'video');
  const sample: StatsSample = { time: now };
  let counters: StatsCounters | undefined;

  if (inbound) {
    const timestamp = num(inbound.timestamp) ?? now;
    const bytesReceived = num(inbound.bytesReceived) ?? 0;
    const framesDecoded = num(inbound.framesDecoded) ?? 0;
    const totalDecodeTime = num(inbound.totalDecodeTime) ?? 0;
    counters = { timestamp, bytesReceived, framesDecoded, totalDecodeTime };
    sample.framesDecoded = framesDecoded;
    sample.width = num(inbound.frameWidth);
    sample.height = num(inbound.frameHeight);
    sample.fps = num(inbound.framesPerSecond);
    sample.jitterMs = (num(inbound.jitter) ?? NaN) * 1000;
    if (!Number.isFinite(sample.jitterMs)) delete sample.jitterMs;
    const lost = num(inbound.packetsLost);
    const received = num(inbound.packetsReceived);
    if (lost !== undefined) {
      sample.packetsLost = lost;
      if (received !== undefined && lost + received > 0)
        sample.packetLossPercent = (100 * lost) / (lost + received);
    }
    const codec = byId.get(str(inbound.codecId) ?? '');
    sample.codec = str(codec?.mimeType)?.replace(/^video\//, '');
    if (previous && timestamp > previous.timestamp) {
      const seconds = (timestamp - previous.timestamp) / 1000;
      sample.bitrateKbps = Math.max(0, (8 * (bytesReceived - previous.bytesReceived)) / 1000 / seconds);
      const frames = framesDecoded - previous.framesDecoded;
      sample.fps ??= Math.max(0, frames / seconds);
      if (frames > 0) sample.decodeMs = (1000 * (totalDecodeTime - previous.totalDecodeTime)) / frames;
    }
  }

  const transport = all.find((s) => s.type === 'transport' && s.selectedCandidatePairId);
  const pair =
    byId.get(str(transport?.selectedCandidatePairId) ?? '') ??
    all.find((s) => s.type === 'candidate-pair' && s.state === 'succeeded' && s.nominated === true);
  if (pair) {
    const rtt = num(pair.currentRoundTripTime);
    if (rtt !== undefined) sample.rttMs = rtt * 1000;
    sample.candidateType = str(byId.get(str(pair.remoteCandidateId) ?? '')?.candidateType);
  }
  return { sample, counters };
}

/** Keeps the samples of the last `windowMs` (60 s by default), oldest first. */
export class StatsHistory {
  private samples: StatsSample[] = [];

  constructor(private readonly windowMs = 60_000) {}

  /** Adds a sample and drops those older than the window. */
  push(sample: StatsSample): void {
    this.samples.push(sample);
    const oldest = sample.time - this.windowMs;
    while (this.samples.length > 0 && (this.samples[0]?.time ?? 0) < oldest) this.samples.shift();
  }

  /** A copy, so that holders cannot change the history. */
  list(): StatsSample[] {
    return [...this.samples];
  }

  clear(): void {
    this.samples = [];
  }
}
