/**
 * A session's sound (CONTRACT §19): 10 ms frames of 48 kHz stereo PCM, encoded here as Opus (libopus in
 * WebAssembly, opusscript) and sent to every viewer that offered to receive audio, each with its own SSRC,
 * payload type and sequence. Where the sound comes from is the application's business: the sample application
 * makes it (sample/sound.ts), the display host reads its program's sound server (display/sound-server.ts).
 *
 * Silence costs nearly nothing: the encoder runs with discontinuous transmission (DTX), whose packets of one or
 * two bytes are not sent (as browsers do), and a frame of digital silence after such a packet is not even
 * encoded, except every DTX_REFRESH_FRAMES frames so that the encoder's state follows.
 */
import type { RtpSink } from './rtp.ts';

export const SAMPLE_RATE = 48_000;
export const CHANNELS = 2;
/** Samples per channel in one frame: 10 ms, the shortest frame that keeps Opus efficient. */
export const FRAME_SAMPLES = 480;
export const FRAME_MS = (FRAME_SAMPLES * 1000) / SAMPLE_RATE;
/** Bytes of one frame of interleaved signed 16-bit little-endian samples. */
export const FRAME_BYTES = FRAME_SAMPLES * CHANNELS * 2;
/** Opus's target: with 10 ms frames and RTP headers, about 50 kbit/s while sound plays. */
export const OPUS_BITRATE = 40_000;
/** Opus packets of this many bytes or fewer say "nothing changed" (DTX) and are not sent. */
const DTX_BYTES = 2;
/** In silence the encoder is still given one frame in this many. */
const DTX_REFRESH_FRAMES = 20;
/** OPUS_SET_DTX_REQUEST of opus_defines.h. */
const OPUS_SET_DTX = 4016;

type OpusScript = import('opusscript');
let opus: typeof import('opusscript') | undefined;

/** Loads the encoder's WebAssembly (tens of milliseconds); later calls resolve at once. */
export async function loadOpus(): Promise<void> {
  opus ??= (await import('opusscript')).default;
}

const ZEROS = Buffer.alloc(FRAME_BYTES);

/** Whether every sample of `frame` is zero (compared natively, a frame's length at a time: no value made per sample). */
export function isSilent(frame: Buffer): boolean {
  for (let at = 0; at < frame.length; at += ZEROS.length) {
    const part = frame.subarray(at, at + ZEROS.length);
    if (!part.equals(ZEROS.subarray(0, part.length))) return false;
  }
  return true;
}

interface AudioSinkState {
  sink: RtpSink;
  seq: number;
  /** The next packet starts a talkspurt (RTP marker bit): the first, and the first after DTX. */
  marker: boolean;
}

/**
 * Encodes frames and fans the packets out. Timestamps advance by one frame per frame given, sent or not, so a
 * player plays each packet at its place in time.
 */
export class AudioStream {
  private readonly sinks = new Map<RtpSink, AudioSinkState>();
  private encoder: OpusScript | null = null;
  private timestamp = Math.floor(Math.random() * 0x1_0000_0000);
  /** Frames given since the last one the encoder was given (in silence); null: sound, or never encoded. */
  private quietFor: number | null = null;
  private inDtx = false;
  /** Packets sent (to at least the stream, whether or not a viewer was there). */
  packets = 0;
  /** Bytes of Opus payload made. */
  bytes = 0;
  /** Frames given. */
  frames = 0;
  /**
   * False once the sound's source is known to be gone for good (a display session whose sound server did not
   * start): later viewers get no audio track, rather than one that never sounds.
   */
  available = true;

  /** Adds a viewer: its packets start with the next frame. */
  add(sink: RtpSink): void {
    this.sinks.set(sink, { sink, seq: Math.floor(Math.random() * 0x10000), marker: true });
  }

  remove(sink: RtpSink): void {
    this.sinks.delete(sink);
  }

  get viewers(): number {
    return this.sinks.size;
  }

  /** One frame of FRAME_BYTES bytes. Before loadOpus() resolves, frames only move the clock on. */
  push(frame: Buffer): void {
    if (frame.length !== FRAME_BYTES) throw new Error(`An audio frame is ${FRAME_BYTES} bytes.`);
    const ts = this.timestamp;
    this.timestamp = (this.timestamp + FRAME_SAMPLES) >>> 0;
    this.frames++;
    const encoder = this.encoderReady();
    if (!encoder) return;
    if (this.inDtx && isSilent(frame)) {
      this.quietFor = (this.quietFor ?? 0) + 1;
      if (this.quietFor < DTX_REFRESH_FRAMES) return;
    }
    this.quietFor = 0;
    const packet = encoder.encode(frame, FRAME_SAMPLES);
    if (packet.length <= DTX_BYTES) {
      if (!this.inDtx) for (const state of this.sinks.values()) state.marker = true;
      this.inDtx = true;
      return;
    }
    this.inDtx = false;
    this.packets++;
    this.bytes += packet.length;
    for (const state of this.sinks.values()) this.forward(state, packet, ts);
  }

  /** Frees the encoder. */
  close(): void {
    this.sinks.clear();
    this.encoder?.delete();
    this.encoder = null;
  }

  private encoderReady(): OpusScript | null {
    if (this.encoder || !opus) return this.encoder;
    const encoder = new opus(SAMPLE_RATE, CHANNELS, opus.Application.RESTRICTED_LOWDELAY);
    encoder.setBitrate(OPUS_BITRATE);
    encoder.encoderCTL(OPUS_SET_DTX, 1);
    this.encoder = encoder;
    return encoder;
  }

  private forward(state: AudioSinkState, payload: Buffer, ts: number): void {
    const { sink } = state;
    const packet = Buffer.allocUnsafe(12 + payload.length);
    packet[0] = 0x80;
    packet[1] = (state.marker ? 0x80 : 0) | (sink.payloadType & 0x7f);
    packet.writeUInt16BE(state.seq, 2);
    packet.writeUInt32BE(ts, 4);
    packet.writeUInt32BE(sink.ssrc >>> 0, 8);
    payload.copy(packet, 12);
    state.seq = (state.seq + 1) & 0xffff;
    state.marker = false;
    sink.send(packet);
  }
}

/**
 * Cuts a byte stream of PCM (a pipe's chunks of any size) into whole frames, in one buffer of its own: a frame
 * given to `onFrame` is good during the call only (AudioStream.push encodes it there), and nothing is allocated
 * per chunk (the display host reads its sound a few hundred times a second).
 */
export class PcmFrames {
  private readonly frame = Buffer.alloc(FRAME_BYTES);
  private filled = 0;

  constructor(private readonly onFrame: (frame: Buffer) => void) {}

  write(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      const copied = chunk.copy(this.frame, this.filled, at, at + FRAME_BYTES - this.filled);
      this.filled += copied;
      at += copied;
      if (this.filled === FRAME_BYTES) {
        this.filled = 0;
        this.onFrame(this.frame);
      }
    }
  }
}
