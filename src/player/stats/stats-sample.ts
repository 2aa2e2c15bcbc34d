/**
 * Reduces two successive `RTCPeerConnection.getStats()` reports to one sample of what a person looks at:
 * fps, bitrate, resolution, codec, round trip, loss, jitter, decode time and the candidate type in use, and
 * the bitrate, jitter and loss of the sound where the connection carries any.
 */

/** The sound's figures; fields are undefined where the browser does not report them yet. */
export interface AudioStats {
  /** Received audio bitrate in kbit/s. */
  bitrateKbps?: number;
  jitterMs?: number;
  packetsLost?: number;
}

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
  /**
   * The way media takes (CONTRACT §21): straight to the application or the service's media door, or through a
   * TURN relay over UDP, TCP or TLS; from the local candidate of the pair in use.
   */
  path?: MediaPath;
  /** Only where an audio inbound-rtp is reported: an application without sound has none. */
  audio?: AudioStats;
}

/** How media reaches this browser, in the words the statistics show. */
export type MediaPath = 'direct' | 'relay UDP' | 'relay TCP' | 'relay TLS';

/** The path of a local candidate: a relay one names the protocol to its TURN server. */
export function mediaPath(local: Record<string, unknown> | undefined): MediaPath | undefined {
  if (!local) return undefined;
  // A peer-reflexive candidate learnt through a relay (the application's answer names the media door's own
  // address) still goes through the relay: Chromium reports its relayProtocol.
  if (local.candidateType !== 'relay' && local.relayProtocol === undefined) return 'direct';
  const protocol = typeof local.relayProtocol === 'string' ? local.relayProtocol.toLowerCase() : 'udp';
  return protocol === 'tcp' ? 'relay TCP' : protocol === 'tls' ? 'relay TLS' : 'relay UDP';
}

/** Bytes received by one inbound-rtp up to its report's time. */
interface ByteCount {
  timestamp: number;
  bytesReceived: number;
}

/** The counters a sample needs from the previous report. */
export interface StatsCounters {
  video?: ByteCount & { framesDecoded: number; totalDecodeTime: number };
  audio?: ByteCount;
}

type Report = Record<string, unknown>;

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function byteCount(inbound: Report, now: number): ByteCount {
  return { timestamp: num(inbound.timestamp) ?? now, bytesReceived: num(inbound.bytesReceived) ?? 0 };
}

/** The bitrate between two counts, in kbit/s; undefined without an earlier one. */
function kbps(count: ByteCount, previous: ByteCount | undefined): number | undefined {
  if (!previous || count.timestamp <= previous.timestamp) return undefined;
  const seconds = (count.timestamp - previous.timestamp) / 1000;
  return Math.max(0, (8 * (count.bytesReceived - previous.bytesReceived)) / 1000 / seconds);
}

/** An inbound-rtp's jitter (reported in seconds) in ms. */
function jitterMs(inbound: Report): number | undefined {
  const jitter = num(inbound.jitter);
  return jitter === undefined ? undefined : jitter * 1000;
}

/** The sound's figures, where there is sound. */
function audioStats(inbound: Report, previous: ByteCount | undefined, now: number) {
  const count = byteCount(inbound, now);
  const audio: AudioStats = {};
  const bitrateKbps = kbps(count, previous);
  if (bitrateKbps !== undefined) audio.bitrateKbps = bitrateKbps;
  const jitter = jitterMs(inbound);
  if (jitter !== undefined) audio.jitterMs = jitter;
  const lost = num(inbound.packetsLost);
  if (lost !== undefined) audio.packetsLost = lost;
  return { audio, count };
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
  const inboundOf = (kind: string) =>
    all.find((s) => s.type === 'inbound-rtp' && (s.kind ?? s.mediaType) === kind);
  const inbound = inboundOf('video');
  const sample: StatsSample = { time: now };
  const counters: StatsCounters = {};

  if (inbound) {
    const count = byteCount(inbound, now);
    const framesDecoded = num(inbound.framesDecoded) ?? 0;
    const totalDecodeTime = num(inbound.totalDecodeTime) ?? 0;
    counters.video = { ...count, framesDecoded, totalDecodeTime };
    sample.framesDecoded = framesDecoded;
    sample.width = num(inbound.frameWidth);
    sample.height = num(inbound.frameHeight);
    sample.fps = num(inbound.framesPerSecond);
    const jitter = jitterMs(inbound);
    if (jitter !== undefined) sample.jitterMs = jitter;
    const lost = num(inbound.packetsLost);
    const received = num(inbound.packetsReceived);
    if (lost !== undefined) {
      sample.packetsLost = lost;
      if (received !== undefined && lost + received > 0)
        sample.packetLossPercent = (100 * lost) / (lost + received);
    }
    const codec = byId.get(str(inbound.codecId) ?? '');
    sample.codec = str(codec?.mimeType)?.replace(/^video\//, '');
    const before = previous?.video;
    sample.bitrateKbps = kbps(count, before);
    if (before && sample.bitrateKbps !== undefined) {
      const seconds = (count.timestamp - before.timestamp) / 1000;
      const frames = framesDecoded - before.framesDecoded;
      sample.fps ??= Math.max(0, frames / seconds);
      if (frames > 0) sample.decodeMs = (1000 * (totalDecodeTime - before.totalDecodeTime)) / frames;
    }
  }

  const audioInbound = inboundOf('audio');
  if (audioInbound) {
    const { audio, count } = audioStats(audioInbound, previous?.audio, now);
    sample.audio = audio;
    counters.audio = count;
  }

  const transport = all.find((s) => s.type === 'transport' && s.selectedCandidatePairId);
  const pair =
    byId.get(str(transport?.selectedCandidatePairId) ?? '') ??
    all.find((s) => s.type === 'candidate-pair' && s.state === 'succeeded' && s.nominated === true);
  if (pair) {
    const rtt = num(pair.currentRoundTripTime);
    if (rtt !== undefined) sample.rttMs = rtt * 1000;
    sample.candidateType = str(byId.get(str(pair.remoteCandidateId) ?? '')?.candidateType);
    const path = mediaPath(byId.get(str(pair.localCandidateId) ?? ''));
    if (path) sample.path = path;
  }
  return { sample, counters: counters.video || counters.audio ? counters : undefined };
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
