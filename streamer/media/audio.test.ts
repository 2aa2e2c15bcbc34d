import OpusScript from 'opusscript';
import { beforeAll, describe, expect, it } from 'vitest';
import { AudioStream, FRAME_BYTES, FRAME_SAMPLES, isSilent, loadOpus, PcmFrames } from './audio.ts';
import type { RtpSink } from './rtp.ts';

beforeAll(loadOpus);

/** A frame of a 440 Hz sine from sample `start` on, both channels. */
function sine(start: number, hz = 440): Buffer {
  const frame = Buffer.alloc(FRAME_BYTES);
  for (let i = 0; i < FRAME_SAMPLES; i++) {
    const v = Math.round(8000 * Math.sin((2 * Math.PI * hz * (start + i)) / 48_000));
    frame.writeInt16LE(v, i * 4);
    frame.writeInt16LE(v, i * 4 + 2);
  }
  return frame;
}

function sink(payloadType = 111, ssrc = 0xabcdef01): RtpSink & { packets: Buffer[] } {
  const packets: Buffer[] = [];
  return { ssrc, payloadType, packets, send: (p) => (packets.push(Buffer.from(p)), true) };
}

describe('AudioStream', () => {
  it('sends each viewer Opus RTP in its own SSRC, payload type and sequence, one frame of time apart', () => {
    const stream = new AudioStream();
    const a = sink(111, 1);
    const b = sink(109, 2);
    stream.add(a);
    stream.add(b);
    for (let f = 0; f < 10; f++) stream.push(sine(f * FRAME_SAMPLES));
    expect(a.packets).toHaveLength(10);
    expect(b.packets).toHaveLength(10);
    const [first, second] = a.packets as [Buffer, Buffer];
    expect(first[0]).toBe(0x80);
    expect(first[1]).toBe(0x80 | 111); // marker: a talkspurt starts
    expect(second[1]).toBe(111);
    expect(b.packets[0]!.readUInt32BE(8)).toBe(2);
    expect((second.readUInt16BE(2) - first.readUInt16BE(2)) & 0xffff).toBe(1);
    expect((second.readUInt32BE(4) - first.readUInt32BE(4)) >>> 0).toBe(FRAME_SAMPLES);
    // What a viewer's decoder makes of it is the tone that went in.
    const decoder = new OpusScript(48_000, 2);
    let crossings = 0;
    let previous = 0;
    for (const packet of a.packets.slice(2)) {
      const pcm = decoder.decode(packet.subarray(12));
      for (let i = 0; i < pcm.length / 4; i++) {
        const s = pcm.readInt16LE(i * 4);
        if (s >= 0 !== previous >= 0) crossings++;
        previous = s;
      }
    }
    expect(crossings / 2 / ((8 * FRAME_SAMPLES) / 48_000)).toBeCloseTo(440, -1);
    stream.close();
  });

  it('sends almost nothing in silence, and marks the talkspurt after it', () => {
    const stream = new AudioStream();
    const viewer = sink();
    stream.add(viewer);
    for (let f = 0; f < 100; f++) stream.push(Buffer.alloc(FRAME_BYTES));
    const quiet = viewer.packets.length;
    // One second of silence: the encoder's few packets before it settles into DTX, and none after.
    expect(quiet).toBeLessThan(25);
    for (let f = 0; f < 100; f++) stream.push(Buffer.alloc(FRAME_BYTES));
    expect(viewer.packets.length).toBe(quiet);
    const before = viewer.packets.at(-1)!.readUInt32BE(4);
    stream.push(sine(0));
    const next = viewer.packets.at(-1)!;
    expect(next[1]! & 0x80).toBe(0x80);
    // The silent frames still moved the clock on.
    expect((next.readUInt32BE(4) - before) >>> 0).toBeGreaterThan(150 * FRAME_SAMPLES);
    stream.close();
  });

  it('refuses a frame of the wrong size', () => {
    expect(() => new AudioStream().push(Buffer.alloc(10))).toThrow(/1920 bytes/);
  });
});

describe('PcmFrames', () => {
  it('cuts chunks of any size into whole frames, keeping the rest', () => {
    const frames: Buffer[] = [];
    const cutter = new PcmFrames((f) => frames.push(Buffer.from(f)));
    const data = Buffer.alloc(FRAME_BYTES * 3 + 100);
    for (let i = 0; i < data.length; i++) data[i] = i % 251;
    for (let at = 0; at < data.length; at += 700) cutter.write(data.subarray(at, at + 700));
    expect(frames).toHaveLength(3);
    expect(Buffer.concat(frames).equals(data.subarray(0, FRAME_BYTES * 3))).toBe(true);
  });

  it('gives each frame as it completes, also several of one chunk and one across chunks', () => {
    const firsts: number[] = [];
    const cutter = new PcmFrames((f) => firsts.push(f[0]!, f[FRAME_BYTES - 1]!));
    const data = Buffer.alloc(FRAME_BYTES * 4);
    for (let frame = 0; frame < 4; frame++)
      data.fill(frame + 1, frame * FRAME_BYTES, (frame + 1) * FRAME_BYTES);
    cutter.write(data.subarray(0, FRAME_BYTES * 2 + 10));
    expect(firsts).toEqual([1, 1, 2, 2]);
    cutter.write(data.subarray(FRAME_BYTES * 2 + 10));
    expect(firsts).toEqual([1, 1, 2, 2, 3, 3, 4, 4]);
  });
});

describe('isSilent', () => {
  it('is true only when every sample is zero', () => {
    expect(isSilent(Buffer.alloc(FRAME_BYTES))).toBe(true);
    const frame = Buffer.alloc(FRAME_BYTES);
    frame[FRAME_BYTES - 1] = 1;
    expect(isSilent(frame)).toBe(false);
    // Longer than a frame: every part is looked at.
    const long = Buffer.alloc(FRAME_BYTES * 2 + 8);
    expect(isSilent(long)).toBe(true);
    long[FRAME_BYTES * 2 + 7] = 1;
    expect(isSilent(long)).toBe(false);
  });
});
