/** The encoder: what ffmpeg is told (timestamps, colours, codecs), its rest and wake, with a real ffmpeg. */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { H264_ENCODER_ENV, type H264Choice } from '../../protocol/h264-encoder.ts';
import { alive } from '../../test-support/processes.ts';
import { until } from '../../test-support/until.ts';
import { Encoder } from './encoder.ts';
import { chooseEncoder, ffmpegArgs, TO_YUV } from './ffmpeg-args.ts';

const size = { width: 640, height: 360, fps: 10 };
const onGpu: H264Choice = { encoder: 'h264_nvenc', reason: 'H.264 on the NVIDIA GPU (h264_nvenc)' };
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the timestamps', () => {
  it('are the clock as frames arrive on stdin, passed through as they are, in either pixel layout', () => {
    const raw = ffmpegArgs(size, 5000).join(' ');
    expect(raw).toContain('-pix_fmt rgba');
    // Nothing to probe in frames of a known layout: the first frame is encoded as it arrives.
    expect(raw).toContain('-probesize 32 -analyzeduration 0 -f rawvideo');
    expect(raw).toContain('-use_wallclock_as_timestamps 1 -framerate 1000 -i pipe:0');
    expect(raw).toContain('-fps_mode passthrough');
    const x11 = ffmpegArgs(size, 5000, 'bgr0').join(' ');
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
    const x264 = ffmpegArgs({ width: 960, height: 540, fps: 30 }, 5000, 'bgr0', 'libx264').join(' ');
    expect(x264).toContain('-c:v libx264 -preset ultrafast -tune zerolatency -profile:v baseline -threads 1');
    expect(x264).toContain('-x264-params repeat-headers=1:scenecut=0:fps=30');
    expect(x264).toContain('-g 30 -keyint_min 30 -b:v 676k -maxrate 1352k -bufsize 676k');
    const nvenc = ffmpegArgs({ width: 960, height: 540, fps: 30 }, 5000, 'bgr0', 'h264_nvenc').join(' ');
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
