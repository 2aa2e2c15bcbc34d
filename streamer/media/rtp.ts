/**
 * Fans the encoder's RTP (VP8 or H.264) out to every viewer. Each viewer gets its own SSRC, payload type and a
 * gap-free sequence, and starts with the packets since the last keyframe so that it can decode at once
 * instead of waiting for the next keyframe (the encoder cannot make one on request).
 */
import type { Codec } from '../../protocol/launch.ts';

/** Where packets for one viewer go; `send` returns false when the transport is not open. */
export interface RtpSink {
  ssrc: number;
  payloadType: number;
  /** Id of the playout-delay header extension the viewer negotiated, if it did. */
  playoutDelayExtId?: number | null;
  send(packet: Buffer): boolean;
}

const RTP_HEADER = 12;

/** Offset of the RTP payload, past CSRCs and a header extension; -1 when the packet is malformed. */
export function payloadOffset(packet: Buffer): number {
  if (packet.length < RTP_HEADER || packet[0]! >> 6 !== 2) return -1;
  let offset = RTP_HEADER + (packet[0]! & 0x0f) * 4;
  if (packet[0]! & 0x10) {
    if (packet.length < offset + 4) return -1;
    offset += 4 + packet.readUInt16BE(offset + 2) * 4;
  }
  return offset < packet.length ? offset : -1;
}

/** RTCP (SR, RR, SDES, BYE, APP) shares the port with RTP; payload types 72-76 with the marker bit. */
export function isRtcp(packet: Buffer): boolean {
  return packet.length >= 2 && packet[1]! >= 192 && packet[1]! <= 223;
}

/**
 * Whether the packet starts a VP8 keyframe (RFC 7741): the descriptor's S bit with partition 0, and the
 * payload header's inverted key frame bit clear.
 */
export function startsVp8Keyframe(packet: Buffer): boolean {
  let i = payloadOffset(packet);
  if (i < 0) return false;
  const descriptor = packet[i]!;
  if ((descriptor & 0x10) === 0 || (descriptor & 0x0f) !== 0) return false;
  i++;
  if (descriptor & 0x80) {
    const ext = packet[i++] ?? 0;
    if (ext & 0x80) i += (packet[i] ?? 0) & 0x80 ? 2 : 1; // PictureID, 7 or 15 bits
    if (ext & 0x40) i++; // TL0PICIDX
    if (ext & 0x30) i++; // TID / KEYIDX
  }
  return i < packet.length && (packet[i]! & 0x01) === 0;
}

/** H.264 NAL unit types (RFC 6184) that begin a picture a decoder can start from: IDR slice and SPS. */
const IDR = 5;
const SPS = 7;
const STAP_A = 24;
const FU_A = 28;

/**
 * Whether the packet holds the start of an H.264 keyframe (RFC 6184): an IDR slice or the SPS before it,
 * alone, in a STAP-A aggregate, or as the first fragment of an FU-A. Several packets of one keyframe match
 * (ffmpeg sends SPS and PPS in a STAP-A, then the IDR in fragments); the fan-out takes the first of them.
 */
export function startsH264Keyframe(packet: Buffer): boolean {
  let i = payloadOffset(packet);
  if (i < 0) return false;
  const type = packet[i]! & 0x1f;
  if (type === IDR || type === SPS) return true;
  if (type === FU_A) {
    const fu = packet[i + 1] ?? 0;
    return (fu & 0x80) !== 0 && (fu & 0x1f) === IDR;
  }
  if (type === STAP_A) {
    i++;
    while (i + 2 < packet.length) {
      const size = packet.readUInt16BE(i);
      const inner = packet[i + 2]! & 0x1f;
      if (inner === IDR || inner === SPS) return true;
      i += 2 + size;
    }
  }
  return false;
}

/** Whether the packet starts a keyframe of `codec`. */
export function startsKeyframe(packet: Buffer, codec: Codec): boolean {
  return codec === 'h264' ? startsH264Keyframe(packet) : startsVp8Keyframe(packet);
}

/**
 * Copies `packet` with another SSRC, payload type, sequence number and timestamp. With `playoutDelayExtId`
 * (and no header extension already there) it also carries a playout delay of 0 to 0 ms (one-byte form,
 * RFC 8285), which tells the browser to show each frame as soon as it is decoded instead of smoothing
 * them on a render schedule: about 17 ms less input to photon on Chromium.
 */
export function rewrite(
  packet: Buffer,
  ssrc: number,
  payloadType: number,
  seq: number,
  ts: number,
  playoutDelayExtId?: number | null,
): Buffer {
  let out: Buffer;
  if (playoutDelayExtId && (packet[0]! & 0x10) === 0) {
    const header = RTP_HEADER + (packet[0]! & 0x0f) * 4;
    const ext = Buffer.from([0xbe, 0xde, 0, 1, (playoutDelayExtId << 4) | 2, 0, 0, 0]);
    out = Buffer.concat([packet.subarray(0, header), ext, packet.subarray(header)]);
    out[0] = out[0]! | 0x10;
  } else {
    out = Buffer.from(packet);
  }
  out[1] = (out[1]! & 0x80) | (payloadType & 0x7f);
  out.writeUInt16BE(seq & 0xffff, 2);
  out.writeUInt32BE(ts >>> 0, 4);
  out.writeUInt32BE(ssrc >>> 0, 8);
  return out;
}

interface SinkState {
  sink: RtpSink;
  seq: number;
}

/** Receives the encoder's packets and forwards them to the viewers. */
export class VideoFanout {
  private readonly sinks = new Map<RtpSink, SinkState>();
  /** Packets since the last keyframe, already with continuous timestamps. */
  private cache: { packet: Buffer; ts: number }[] = [];
  private tsOffset = 0;
  private lastTs: number | null = null;
  private inputSsrc: number | null = null;
  private readonly frameTicks: number;
  /** Timestamp of the keyframe the cache starts with: later packets of that same picture do not restart it. */
  private keyTs: number | null = null;

  /** Packets forwarded since start, for /health and tests. */
  packets = 0;

  constructor(
    fps: number,
    /** The codec of the packets pushed, for finding keyframes. */
    readonly codec: Codec = 'vp8',
  ) {
    this.frameTicks = Math.round(90_000 / fps);
  }

  /** Adds a viewer and replays the packets since the last keyframe to it. */
  add(sink: RtpSink): void {
    const state: SinkState = { sink, seq: Math.floor(Math.random() * 0x10000) };
    this.sinks.set(sink, state);
    // The replayed frames get timestamps one tick apart ending at the newest one: a player paces frames by
    // their timestamps, and the real spacing would hold the live picture back by the age of the keyframe.
    const newest = this.cache[this.cache.length - 1]?.ts ?? 0;
    let framesAfter = 0;
    for (let i = this.cache.length - 1; i > 0; i--) {
      if (this.cache[i]!.ts !== this.cache[i - 1]!.ts) framesAfter++;
    }
    let previous: number | null = null;
    for (const { packet, ts } of this.cache) {
      if (previous !== null && ts !== previous) framesAfter--;
      previous = ts;
      this.forward(state, packet, (newest - framesAfter) >>> 0);
    }
  }

  remove(sink: RtpSink): void {
    this.sinks.delete(sink);
  }

  /** Whether a keyframe has been seen since the encoder (re)started. */
  get hasKeyframe(): boolean {
    return this.cache.length > 0;
  }

  /** The encoder restarted (new size, or after a crash): forget its packets until its first keyframe. */
  restart(): void {
    this.cache = [];
    this.inputSsrc = null;
    this.keyTs = null;
  }

  /** One datagram from the encoder. Anything that is not RTP is dropped. */
  push(packet: Buffer): void {
    if (isRtcp(packet) || payloadOffset(packet) < 0) return;
    const inputTs = packet.readUInt32BE(4);
    const ssrc = packet.readUInt32BE(8);
    if (ssrc !== this.inputSsrc) {
      // A new encoder: its timestamps continue one frame after the last ones sent, so players see no jump back.
      this.inputSsrc = ssrc;
      const next = this.lastTs === null ? 0 : this.lastTs + this.frameTicks;
      this.tsOffset = next - inputTs;
    }
    const ts = (inputTs + this.tsOffset) >>> 0;
    this.lastTs = ts;
    if (startsKeyframe(packet, this.codec) && ts !== this.keyTs) {
      this.cache = [];
      this.keyTs = ts;
    } else if (this.cache.length === 0) {
      // Nothing decodable until the first keyframe of this encoder.
      return;
    }
    this.cache.push({ packet, ts });
    this.packets++;
    for (const state of this.sinks.values()) this.forward(state, packet, ts);
  }

  private forward(state: SinkState, packet: Buffer, ts: number): void {
    const { sink } = state;
    const out = rewrite(packet, sink.ssrc, sink.payloadType, state.seq, ts, sink.playoutDelayExtId);
    state.seq = (state.seq + 1) & 0xffff;
    state.sink.send(out);
  }
}
