/** The encoder's still: a second output of the same ffmpeg, private, replaced whole, and never at the stream's cost. */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { H264_ENCODER_ENV, type H264Choice } from '../../protocol/h264-encoder.ts';
import { alive } from '../../test-support/processes.ts';
import { until } from '../../test-support/until.ts';
import { Encoder } from './encoder.ts';
import { chooseEncoder, ffmpegArgs, STILL_WIDTH, TO_YUV } from './ffmpeg-args.ts';

const size = { width: 640, height: 360, fps: 10 };
const onGpu: H264Choice = { encoder: 'h264_nvenc', reason: 'H.264 on the NVIDIA GPU (h264_nvenc)' };
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An encoder fed a frame of changing grey every 100 ms; returns the packets it sent and its exits. */
async function feed(stillPath: string) {
  const seen = { packets: 0, exits: [] as string[] };
  const encoder = new Encoder({
    stillPath,
    onPacket: () => seen.packets++,
    onUnexpectedExit: (reason) => seen.exits.push(reason),
  });
  await encoder.start(size);
  let n = 0;
  const timer = setInterval(() => {
    const frame = encoder.acquire();
    if (frame) encoder.write(frame.fill(n++ % 256));
  }, 1000 / size.fps);
  cleanups.push(() => (clearInterval(timer), encoder.stop()));
  return seen;
}

/** Width and height from a JPEG's baseline frame header. */
function jpegSize(data: Buffer): { width: number; height: number } | null {
  const at = data.indexOf(Buffer.from([0xff, 0xc0]));
  return at < 0 ? null : { height: data.readUInt16BE(at + 5), width: data.readUInt16BE(at + 7) };
}

describe('the timestamps', () => {
  it('are the clock as frames arrive on stdin, passed through as they are, in either pixel layout', () => {
    const raw = ffmpegArgs(size, 5000).join(' ');
    expect(raw).toContain('-pix_fmt rgba');
    // Nothing to probe in frames of a known layout: the first frame is encoded as it arrives.
    expect(raw).toContain('-probesize 32 -analyzeduration 0 -f rawvideo');
    expect(raw).toContain('-use_wallclock_as_timestamps 1 -framerate 1000 -i pipe:0');
    expect(raw).toContain('-fps_mode passthrough');
    const x11 = ffmpegArgs(size, 5000, null, 'bgr0').join(' ');
    expect(x11).toContain('-pix_fmt bgr0 -s 640x360');
    expect(x11).toContain('-use_wallclock_as_timestamps 1');
  });
});

describe('the conversion to YUV', () => {
  it('keeps the colours of either pixel layout (BT.601, limited range)', () => {
    // 4x2 pixels: a 2x2 block of pure red, then one of pure white; each block is one chroma sample.
    const red = { rgba: [255, 0, 0, 255], bgr0: [0, 0, 255, 0] };
    const white = [255, 255, 255, 255];
    for (const layout of ['rgba', 'bgr0'] as const) {
      const row = [...red[layout], ...red[layout], ...white, ...white];
      const input = Buffer.from([...row, ...row]);
      const run = spawnSync(
        'ffmpeg',
        [
          ...['-hide_banner', '-loglevel', 'error', '-f', 'rawvideo', '-pix_fmt', layout, '-s', '4x2'],
          ...['-i', 'pipe:0', ...TO_YUV, '-f', 'rawvideo', 'pipe:1'],
        ],
        { input },
      );
      expect(run.status, run.stderr.toString()).toBe(0);
      const yuv = run.stdout;
      // 8 luma samples, then 2 Cb and 2 Cr.
      expect([...yuv.subarray(0, 8)]).toEqual([81, 81, 235, 235, 81, 81, 235, 235]);
      expect([...yuv.subarray(8, 10)]).toEqual([90, 128]);
      expect([...yuv.subarray(10, 12)]).toEqual([240, 128]);
    }
  });
});

describe('the still', () => {
  it('is asked of ffmpeg only where a path is given, as a second output', () => {
    expect(ffmpegArgs(size, 5000).join(' ')).not.toContain('image2');
    const args = ffmpegArgs(size, 5000, '/data/stills/a.jpg');
    expect(args.at(-1)).toBe('/data/stills/a.jpg');
    expect(args.join(' ')).toContain('-update 1 -atomic_writing 1');
    expect(args.indexOf('rtp://127.0.0.1:5000?pkt_size=1200&rtcpport=5000')).toBeGreaterThan(0);
  });

  it('is a small JPEG that only this user may read, there within seconds of the first frame', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'streamgate-still-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'session.jpg');
    const seen = await feed(file);
    await until('the first still', () => existsSync(file));
    const data = await readFile(file);
    expect(data.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(jpegSize(data)).toEqual({ width: STILL_WIDTH, height: 180 });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(seen.packets).toBeGreaterThan(0);
    expect(seen.exits).toEqual([]);
  });

  it('is given up when it cannot be written, and the stream goes on', async () => {
    const file = path.join(tmpdir(), `streamgate-no-such-dir-${process.pid}`, 'session.jpg');
    const seen = await feed(file);
    await until('ffmpeg to fail on the still', () => seen.exits.length > 0);
    expect(seen.exits[0]).toMatch(/could not write the still/);
    const before = seen.packets;
    await until('the stream to go on', () => seen.packets > before + 20);
    expect(seen.exits).toHaveLength(1);
  });
});

describe('the encoder at rest', () => {
  it('stops ffmpeg, refuses frames and keeps a new size until it wakes, then streams again', async () => {
    const seen = { packets: 0, exits: [] as string[] };
    const encoder = new Encoder({
      onPacket: () => seen.packets++,
      onUnexpectedExit: (reason) => seen.exits.push(reason),
    });
    await encoder.start(size);
    cleanups.push(() => encoder.stop());
    const send = () => {
      const frame = encoder.acquire();
      if (frame) encoder.write(frame.fill(seen.packets % 256));
      return frame !== null;
    };
    const streams = (why: string) =>
      until(why, () => (send(), seen.packets > 0 ? true : undefined), 10_000, 100);
    await streams('packets before the rest');
    const first = encoder.pid as number;

    encoder.rest();
    expect(encoder.isResting).toBe(true);
    await until('ffmpeg to end', () => (alive(first) ? undefined : true), 5_000, 50);
    expect(send()).toBe(false);
    // A resize at rest starts nothing; the size is the one it wakes at.
    encoder.resize({ ...size, width: 320, height: 180 });
    expect(encoder.pid).toBeUndefined();

    seen.packets = 0;
    encoder.wake();
    expect(encoder.isResting).toBe(false);
    expect(encoder.pid).not.toBe(first);
    expect(encoder.acquire()?.length).toBe(320 * 180 * 4);
    await streams('packets after waking');
    // Neither the rest nor the wake was an unexpected end.
    expect(seen.exits).toEqual([]);
  });
});

describe('the encoder', () => {
  it('is libvpx for VP8, whatever the environment says, without probing the machine', async () => {
    const probe = vi.fn(() => Promise.resolve(onGpu));
    const env = { [H264_ENCODER_ENV]: 'h264_nvenc' };
    expect((await chooseEncoder('vp8', env, probe)).encoder).toBe('libvpx');
    expect(probe).not.toHaveBeenCalled();
  });

  it("is, for H.264, the service's choice where it gives one, without probing the machine", async () => {
    const probe = vi.fn(() => Promise.resolve(onGpu));
    const choice = await chooseEncoder('h264', { [H264_ENCODER_ENV]: 'libx264' }, probe);
    expect(choice).toEqual({
      encoder: 'libx264',
      reason: 'H.264 with libx264, as the service found this machine',
    });
    expect(probe).not.toHaveBeenCalled();
  });

  it('probes the machine for H.264 when the service named no encoder it knows', async () => {
    for (const env of [{}, { [H264_ENCODER_ENV]: 'h265_magic' }]) {
      const probe = vi.fn(() => Promise.resolve(onGpu));
      expect(await chooseEncoder('h264', env, probe)).toBe(onGpu);
      expect(probe).toHaveBeenCalledOnce();
    }
  });

  it.skipIf(existsSync('/dev/nvidiactl'))('is x264 on a machine without an NVIDIA GPU (as CI)', async () => {
    expect((await chooseEncoder('h264', {})).encoder).toBe('libx264');
  });

  it('makes H.264 as browsers take it: constrained baseline, SPS and PPS before each IDR, a keyframe every second', () => {
    const x264 = ffmpegArgs({ width: 960, height: 540, fps: 30 }, 5000, null, 'bgr0', 'libx264').join(' ');
    expect(x264).toContain('-c:v libx264 -preset ultrafast -tune zerolatency -profile:v baseline -threads 1');
    expect(x264).toContain('-x264-params repeat-headers=1:scenecut=0:fps=30');
    expect(x264).toContain('-g 30 -keyint_min 30 -b:v 676k -maxrate 1352k -bufsize 676k');
    const nvenc = ffmpegArgs({ width: 960, height: 540, fps: 30 }, 5000, null, 'bgr0', 'h264_nvenc').join(
      ' ',
    );
    expect(nvenc).toContain('-c:v h264_nvenc -preset p1 -tune ull -zerolatency 1');
    expect(nvenc).toContain('-profile:v baseline');
    expect(nvenc).toContain('-g 30 -keyint_min 30 -b:v 676k');
    expect(ffmpegArgs({ width: 960, height: 540, fps: 30 }, 5000).join(' ')).toContain('-c:v libvpx');
  });

  it('makes VP8 mend a block one level off what the viewer has (static-thresh under 256, issue 34 item 11)', () => {
    const vp8 = ffmpegArgs({ width: 960, height: 540, fps: 30 }, 5000).join(' ');
    expect(vp8).toContain('-c:v libvpx -deadline realtime -cpu-used 16');
    expect(vp8).toContain('-error-resilient 1 -threads 1 -static-thresh 100');
  });
});
