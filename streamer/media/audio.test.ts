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

  it('sends almost nothing in silence, and marks the talkspurt after it, stamped with the time it starts', () => {
    let now = 0;
    const stream = new AudioStream(() => now);
    const viewer = sink();
    stream.add(viewer);
    const push = (frame: Buffer) => {
      stream.push(frame);
      now += 10;
    };
    push(sine(0));
    const first = viewer.packets[0]!.readUInt32BE(4);
    for (let f = 0; f < 100; f++) push(Buffer.alloc(FRAME_BYTES));
    const quiet = viewer.packets.length;
    // One second of silence: the encoder's few packets before it settles into DTX, and none after.
    expect(quiet).toBeLessThan(25);
    for (let f = 0; f < 100; f++) push(Buffer.alloc(FRAME_BYTES));
    expect(viewer.packets.length).toBe(quiet);
    now += 3;
    push(sine(0));
    const next = viewer.packets.at(-1)!;
    expect(next[1]! & 0x80).toBe(0x80);
    // 2,013 ms after the first packet, on the clock.
    expect((next.readUInt32BE(4) - first) >>> 0).toBe(2013 * 48);
    push(sine(FRAME_SAMPLES));
    expect((viewer.packets.at(-1)!.readUInt32BE(4) - next.readUInt32BE(4)) >>> 0).toBe(FRAME_SAMPLES);
    stream.close();
  });

  it('starts a talkspurt at the clock, whether its frames came ahead of it or behind', () => {
    let now = 0;
    const stream = new AudioStream(() => now);
    const viewer = sink();
    stream.add(viewer);
    /** 10 frames of sound and `silent` of silence, given at once; the timestamp of its first packet. */
    const talkspurt = (silent: number) => {
      const from = viewer.packets.length;
      for (let f = 0; f < 10; f++) stream.push(sine(f * FRAME_SAMPLES));
      for (let f = 0; f < silent; f++) stream.push(Buffer.alloc(FRAME_BYTES));
      expect(viewer.packets[from]![1]! & 0x80).toBe(0x80);
      return (viewer.packets[from]!.readUInt32BE(4) - first) >>> 0;
    };
    let first = 0;
    first = talkspurt(190);
    // 2,000 ms of frames were given in no time: 1,000 ms later by the clock, the next talkspurt is at 1,000 ms.
    now = 1_000;
    expect(talkspurt(60)).toBe(1_000 * 48);
    // Never before the end of the last packet sent, though.
    const last = (viewer.packets.at(-1)!.readUInt32BE(4) - first) >>> 0;
    expect(talkspurt(60)).toBe(last + FRAME_SAMPLES);
    // Fewer frames given than the clock's time (dropped on a busy machine, a capture restarted): the clock again.
    now = 5_000;
    expect(talkspurt(0)).toBe(5_000 * 48);
    stream.close();
  });

  it('moves the clock on over frames a source skipped, within a talkspurt', () => {
    const stream = new AudioStream(() => 0);
    const viewer = sink();
    stream.add(viewer);
    stream.push(sine(0));
    stream.skip(7);
    stream.push(sine(FRAME_SAMPLES));
    const [a, b] = viewer.packets as [Buffer, Buffer];
    expect((b.readUInt32BE(4) - a.readUInt32BE(4)) >>> 0).toBe(8 * FRAME_SAMPLES);
    expect(b[1]! & 0x80).toBe(0);
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
});

describe('isSilent', () => {
  it('is true only when every sample is zero', () => {
    expect(isSilent(Buffer.alloc(FRAME_BYTES))).toBe(true);
    const frame = Buffer.alloc(FRAME_BYTES);
    frame[FRAME_BYTES - 1] = 1;
    expect(isSilent(frame)).toBe(false);
  });
});
