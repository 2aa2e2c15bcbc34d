import { describe, expect, it } from 'vitest';
import {
  isRtcp,
  payloadOffset,
  rewrite,
  startsH264Keyframe,
  startsKeyframe,
  startsVp8Keyframe,
  VideoFanout,
  type RtpSink,
} from './rtp.ts';

/** A VP8 RTP packet: extended descriptor with a 15-bit PictureID, then the VP8 payload header. */
function vp8(
  seq: number,
  ts: number,
  opts: { start: boolean; key: boolean; ssrc?: number; marker?: boolean },
) {
  const header = Buffer.alloc(12);
  header[0] = 0x80;
  header[1] = (opts.marker ? 0x80 : 0) | 96;
  header.writeUInt16BE(seq, 2);
  header.writeUInt32BE(ts, 4);
  header.writeUInt32BE(opts.ssrc ?? 0x1234, 8);
  const descriptor = Buffer.from([0x80 | (opts.start ? 0x10 : 0), 0x80, 0x80 | 0x01, 0x23]);
  const payload = Buffer.from([opts.start ? (opts.key ? 0x10 : 0x11) : 0x55, 0x02, 0x03]);
  return Buffer.concat([header, descriptor, payload]);
}

class Collector implements RtpSink {
  packets: Buffer[] = [];
  constructor(
    readonly ssrc: number,
    readonly payloadType: number,
  ) {}
  send(packet: Buffer): boolean {
    this.packets.push(packet);
    return true;
  }
}

describe('RTP helpers', () => {
  it('finds the payload past CSRCs and a header extension', () => {
    const packet = vp8(1, 0, { start: true, key: true });
    expect(payloadOffset(packet)).toBe(12);
    const withExt = Buffer.concat([
      Buffer.from([0x90, 96, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]),
      Buffer.from([0xbe, 0xde, 0, 1, 1, 2, 3, 4, 9]),
    ]);
    expect(payloadOffset(withExt)).toBe(20);
    expect(payloadOffset(Buffer.from([0x00, 1, 2]))).toBe(-1);
  });

  it('tells keyframe starts from delta frames and continuation packets', () => {
    expect(startsVp8Keyframe(vp8(1, 0, { start: true, key: true }))).toBe(true);
    expect(startsVp8Keyframe(vp8(2, 0, { start: false, key: true }))).toBe(false);
    expect(startsVp8Keyframe(vp8(3, 0, { start: true, key: false }))).toBe(false);
  });

  it('tells RTCP from RTP', () => {
    expect(isRtcp(Buffer.from([0x80, 200, 0, 6]))).toBe(true);
    expect(isRtcp(vp8(1, 0, { start: true, key: true }))).toBe(false);
  });

  it('rewrites SSRC, payload type, sequence and timestamp but keeps the marker bit and payload', () => {
    const packet = vp8(10, 1000, { start: true, key: true, marker: true });
    const out = rewrite(packet, 0xdeadbeef, 120, 65535, 42);
    expect(out[1]).toBe(0x80 | 120);
    expect(out.readUInt16BE(2)).toBe(65535);
    expect(out.readUInt32BE(4)).toBe(42);
    expect(out.readUInt32BE(8)).toBe(0xdeadbeef);
    expect(out.subarray(12)).toEqual(packet.subarray(12));
    expect(packet.readUInt32BE(8)).toBe(0x1234);
  });

  it('adds a playout delay of 0 to 0 ms as a one-byte header extension where the viewer negotiated one', () => {
    const packet = vp8(10, 1000, { start: true, key: true, marker: true });
    const out = rewrite(packet, 0xdeadbeef, 120, 7, 42, 6);
    expect(out[0]! & 0x10).toBe(0x10);
    expect(out[1]).toBe(0x80 | 120);
    expect(out.readUInt32BE(8)).toBe(0xdeadbeef);
    expect(out.subarray(12, 20)).toEqual(Buffer.from([0xbe, 0xde, 0, 1, 0x62, 0, 0, 0]));
    expect(payloadOffset(out)).toBe(20);
    expect(out.subarray(20)).toEqual(packet.subarray(12));
    expect(startsVp8Keyframe(out)).toBe(true);
  });
});

describe('VideoFanout', () => {
  it('forwards nothing until the first keyframe', () => {
    const fanout = new VideoFanout(30);
    const sink = new Collector(1, 96);
    fanout.add(sink);
    fanout.push(vp8(1, 0, { start: true, key: false }));
    expect(sink.packets).toHaveLength(0);
    expect(fanout.hasKeyframe).toBe(false);
    fanout.push(vp8(2, 3000, { start: true, key: true }));
    expect(sink.packets).toHaveLength(1);
    expect(fanout.hasKeyframe).toBe(true);
  });

  it('replays the packets since the last keyframe to a new viewer, with its own gap-free sequence', () => {
    const fanout = new VideoFanout(30);
    fanout.push(vp8(1, 0, { start: true, key: true }));
    fanout.push(vp8(2, 0, { start: false, key: false, marker: true }));
    fanout.push(vp8(3, 3000, { start: true, key: true }));
    fanout.push(vp8(4, 6000, { start: true, key: false }));
    fanout.push(vp8(5, 9000, { start: true, key: false }));
    const late = new Collector(0xabc, 100);
    fanout.add(late);
    expect(late.packets).toHaveLength(3);
    expect(startsVp8Keyframe(late.packets[0]!)).toBe(true);
    fanout.push(vp8(6, 12000, { start: true, key: false }));
    const seqs = late.packets.map((p) => p.readUInt16BE(2));
    seqs.forEach((s, i) => i > 0 && expect(s).toBe((seqs[i - 1]! + 1) & 0xffff));
    expect(late.packets.every((p) => p.readUInt32BE(8) === 0xabc && (p[1]! & 0x7f) === 100)).toBe(true);
    // Replayed frames end at the newest timestamp, one tick apart; live ones keep their spacing.
    expect(late.packets.map((p) => p.readUInt32BE(4))).toEqual([8998, 8999, 9000, 12000]);
  });

  it('keeps timestamps rising across an encoder restart and waits for its keyframe', () => {
    const fanout = new VideoFanout(30);
    const sink = new Collector(1, 96);
    fanout.add(sink);
    fanout.push(vp8(1, 5000, { start: true, key: true, ssrc: 1 }));
    fanout.restart();
    fanout.push(vp8(1, 777, { start: true, key: false, ssrc: 2 }));
    fanout.push(vp8(2, 3777, { start: true, key: true, ssrc: 2 }));
    const ts = sink.packets.map((p) => p.readUInt32BE(4));
    expect(ts).toHaveLength(2);
    expect(ts[1]! > ts[0]!).toBe(true);
  });

  it('stops sending to a removed viewer and drops RTCP and garbage', () => {
    const fanout = new VideoFanout(30);
    const sink = new Collector(1, 96);
    fanout.add(sink);
    fanout.push(Buffer.from([0x80, 200, 0, 6, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
    fanout.push(Buffer.from('garbage'));
    expect(sink.packets).toHaveLength(0);
    fanout.remove(sink);
    fanout.push(vp8(1, 0, { start: true, key: true }));
    expect(sink.packets).toHaveLength(0);
  });
});

/** An H.264 RTP packet (RFC 6184) with `payload` after the header. */
function h264(seq: number, ts: number, payload: number[], marker = false) {
  const header = Buffer.alloc(12);
  header[0] = 0x80;
  header[1] = (marker ? 0x80 : 0) | 96;
  header.writeUInt16BE(seq, 2);
  header.writeUInt32BE(ts, 4);
  header.writeUInt32BE(0x4321, 8);
  return Buffer.concat([header, Buffer.from(payload)]);
}
/** What ffmpeg sends for an H.264 keyframe: SPS (7), PPS (8) in a STAP-A (24), then the IDR (5) in FU-A (28) fragments. */
const stapSpsPps = (seq: number, ts: number) => h264(seq, ts, [24, 0, 2, 0x67, 0x42, 0, 2, 0x68, 0xce]);
const fuIdr = (seq: number, ts: number, start: boolean, end = false) =>
  h264(seq, ts, [0x7c, (start ? 0x80 : 0) | (end ? 0x40 : 0) | 5, 0x88, 0x84], end);
const slice = (seq: number, ts: number) => h264(seq, ts, [0x41, 0x9a, 0x02], true);

describe('H.264 keyframes', () => {
  it('are found as an IDR or SPS alone, in a STAP-A, or in the first FU-A fragment of an IDR', () => {
    expect(startsH264Keyframe(h264(1, 0, [0x65, 0x88]))).toBe(true); // IDR slice alone
    expect(startsH264Keyframe(h264(1, 0, [0x67, 0x42]))).toBe(true); // SPS alone
    expect(startsH264Keyframe(stapSpsPps(1, 0))).toBe(true);
    expect(startsH264Keyframe(h264(1, 0, [24, 0, 2, 0x68, 0xce, 0, 2, 0x65, 0x88]))).toBe(true); // PPS, IDR
    expect(startsH264Keyframe(fuIdr(1, 0, true))).toBe(true);
    expect(startsH264Keyframe(fuIdr(2, 0, false))).toBe(false);
    expect(startsH264Keyframe(fuIdr(3, 0, false, true))).toBe(false);
    expect(startsH264Keyframe(slice(4, 0))).toBe(false); // non-IDR slice
    expect(startsH264Keyframe(h264(5, 0, [0x7c, 0x81, 0x9a]))).toBe(false); // FU-A start of a non-IDR slice
    expect(startsH264Keyframe(h264(6, 0, [24, 0, 1, 0x06, 0, 2, 0x68, 0xce]))).toBe(false); // SEI, PPS
    expect(startsH264Keyframe(Buffer.from([0x80, 96]))).toBe(false);
    expect(startsKeyframe(stapSpsPps(1, 0), 'h264')).toBe(true);
    expect(startsKeyframe(vp8(1, 0, { start: true, key: true }), 'h264')).toBe(false);
    expect(startsKeyframe(vp8(1, 0, { start: true, key: true }), 'vp8')).toBe(true);
  });

  it('after the playout-delay extension is added, still', () => {
    expect(startsH264Keyframe(rewrite(fuIdr(1, 0, true), 1, 102, 1, 0, 6))).toBe(true);
  });

  it('start the replay to a new viewer at the SPS and PPS before the IDR, not at the IDR fragments', () => {
    const fanout = new VideoFanout(30, 'h264');
    // Nothing before the first keyframe.
    fanout.push(slice(1, 0));
    expect(fanout.hasKeyframe).toBe(false);
    const first = [
      stapSpsPps(2, 3000),
      fuIdr(3, 3000, true),
      fuIdr(4, 3000, false),
      fuIdr(5, 3000, false, true),
    ];
    for (const p of first) fanout.push(p);
    fanout.push(slice(6, 6000));
    const second = [stapSpsPps(7, 9000), fuIdr(8, 9000, true), fuIdr(9, 9000, false, true)];
    for (const p of second) fanout.push(p);
    fanout.push(slice(10, 12000));
    const late = new Collector(0xabc, 102);
    fanout.add(late);
    const payloads = late.packets.map((p) => p.subarray(12).toString('hex'));
    expect(payloads).toEqual([...second, slice(10, 12000)].map((p) => p.subarray(12).toString('hex')));
    expect(late.packets.every((p) => (p[1]! & 0x7f) === 102)).toBe(true);
  });
});
