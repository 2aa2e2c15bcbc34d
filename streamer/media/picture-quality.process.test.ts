/**
 * The picture a person gets of a redrawing terminal (`top`): the encoders' own arguments (videoArgs) on frames of
 * a synthetic top, 960x540 at 30 fps, whose every row is redrawn twice a second, decoded again and compared with
 * what went in (PSNR). With a keyframe every half second the keyframes starved the frames between them of rate and
 * VP8 showed blocks: 29.3 dB here; with one a second, 39.8 dB. (x264 went from 31.8 to 32.5 dB: it held its picture
 * better, so it is not held to this figure.) And the picture that stays once a terminal's text was replaced by
 * fewer lines (issue 34, item 11): frames sent as the display host sends them (each change, again 5 ms and a frame
 * later, then once a second), its last picture a second and two after the last change. With -static-thresh 1000
 * the background where text had been kept faint rectangles of another grey: 51.4 dB; with 100, 59.4 dB.
 * Deterministic: the same frames each run, one encoder thread.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TO_YUV, videoArgs, type VideoEncoderName } from './ffmpeg-args.ts';

const size = { width: 960, height: 540, fps: 30 };
const FRAMES = 120;

/** A terminal's empty screen in `background`, ready for text in `font`; `pixels` reads what was drawn. */
function terminal(background: string, font: string) {
  const canvas = createCanvas(size.width, size.height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, size.width, size.height);
  ctx.font = font;
  ctx.fillStyle = '#e0e0e0';
  return { ctx, pixels: () => Buffer.from(ctx.getImageData(0, 0, size.width, size.height).data.buffer) };
}

/** Frame `n` of a terminal running `top -d 0.5`: a header and 30 rows of figures, all redrawn every 15 frames. */
function topFrame(n: number): Buffer {
  const { ctx, pixels } = terminal('#000', '15px monospace');
  const refresh = Math.floor(n / 15);
  // A little generator of figures, the same for the same refresh.
  let seed = refresh * 7919 + 1;
  const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  ctx.fillText(
    `top - 15:24:${String(refresh).padStart(2, '0')} up 7:16, load average: ${next().toFixed(2)}`,
    4,
    16,
  );
  ctx.fillText(`%Cpu(s): ${(next() * 20).toFixed(1)} us, ${(next() * 5).toFixed(1)} sy, 90.0 id`, 4, 34);
  ctx.fillRect(0, 56, size.width, 18);
  ctx.fillStyle = '#000';
  ctx.fillText('  PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND', 4, 70);
  ctx.fillStyle = '#e0e0e0';
  for (let row = 0; row < 30; row++) {
    const pid = String(Math.floor(next() * 40_000)).padStart(5);
    const cpu = (next() * 30).toFixed(1).padStart(5);
    const mem = (next() * 2).toFixed(1).padStart(5);
    const line = `${pid} root      20   0  ${String(Math.floor(next() * 500_000)).padStart(6)}  ${cpu}  ${mem}   0:00.${String(row).padStart(2, '0')} prog${row}`;
    ctx.fillText(line, 4, 90 + row * 15);
  }
  return pixels();
}

/** A terminal's screen, #1d1f21 as the catalog's: `lines` lines of a listing, different for each `seed`. */
function listing(lines: number, seed: number): Buffer {
  const { ctx, pixels } = terminal('#1d1f21', '13px monospace');
  const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let row = 0; row < lines; row++) {
    const letters = Array.from({ length: 4 + Math.floor(next() * 12) }, () =>
      String.fromCharCode(97 + Math.floor(next() * 26)),
    );
    const bytes = String(Math.floor(next() * 900_000)).padStart(7);
    ctx.fillText(`-rwxr-xr-x  1 root root ${bytes} Nov 28 07:49 ${letters.join('')}`, 2, 13 + row * 15);
  }
  return pixels();
}

/** Runs ffmpeg with the frames on its stdin; resolves with its error output. */
function ffmpeg(args: string[], frames: Buffer[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', args, { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(stderr) : reject(new Error(`ffmpeg ${code}: ${stderr}`)),
    );
    child.stdin.on('error', () => undefined);
    void (async () => {
      for (const frame of frames) {
        if (!child.stdin.write(frame)) await new Promise((r) => child.stdin.once('drain', r));
      }
      child.stdin.end();
    })();
  });
}

const raw = ['-f', 'rawvideo', '-pix_fmt', 'rgba', '-s', `${size.width}x${size.height}`, '-framerate', '30'];

/** The average PSNR (dB) of `encoder`'s picture of the frames. */
async function quality(dir: string, encoder: VideoEncoderName, frames: Buffer[]) {
  const file = path.join(dir, `${encoder}.mkv`);
  await ffmpeg(
    ['-hide_banner', '-y', ...raw, '-i', 'pipe:0', ...TO_YUV, ...videoArgs(encoder, size), file],
    frames,
  );
  const report = await ffmpeg(
    ['-hide_banner', '-i', file, ...raw, '-i', 'pipe:0', '-lavfi', '[0:v][1:v]psnr', '-f', 'null', '-'],
    frames,
  );
  return Number(/PSNR .* average:([\d.]+)/.exec(report)?.[1]);
}

describe('the picture of a redrawing terminal', () => {
  let dir = '';
  let frames: Buffer[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'streamgate-quality-'));
    frames = Array.from({ length: FRAMES }, (_, n) => topFrame(n));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is not blocky in VP8: over 35 dB against what was drawn', async () => {
    expect(await quality(dir, 'libvpx', frames)).toBeGreaterThan(35);
  });

  it('keeps no faint rectangles in VP8 where text was replaced: over 56 dB once still', async () => {
    // A screen of 35 lines, replaced every 400 ms by 26, 18, then 10 other lines; still from 1.2 s.
    const screens = [35, 26, 18, 10].map((lines, i) => listing(lines, i + 1));
    const sent = screens.flatMap((_, i) => [0, 5, 38].map((ms) => ({ screen: i, ms: i * 400 + ms })));
    sent.push({ screen: 3, ms: 2200 }, { screen: 3, ms: 3200 });
    const input = sent.map((s) => screens[s.screen]!);
    // Each frame stamped with its time, in the encoder's time base (1 ms), as its wall clock would.
    let stamps = String(sent[sent.length - 1]!.ms);
    for (let k = sent.length - 2; k >= 0; k--) stamps = `if(eq(N,${k}),${sent[k]!.ms},${stamps})`;
    const at1ms = [...raw.slice(0, -1), '1000'];
    const file = path.join(dir, 'still.ivf');
    await ffmpeg(
      [
        ...['-hide_banner', '-y', ...at1ms, '-i', 'pipe:0', '-vf', `setpts='${stamps}'`, ...TO_YUV],
        ...['-fps_mode', 'passthrough', ...videoArgs('libvpx', size), '-f', 'ivf', file],
      ],
      input,
    );
    const log = path.join(dir, 'still.psnr');
    // Frame by frame: both stamped with their index.
    const byIndex = 'settb=1/1000,setpts=N';
    await ffmpeg(
      [
        ...['-hide_banner', '-i', file, ...at1ms, '-i', 'pipe:0', '-lavfi'],
        `[0:v]${byIndex}[a];[1:v]${byIndex}[b];[a][b]psnr=stats_file=${log}`,
        ...['-f', 'null', '-'],
      ],
      input,
    );
    const psnr = (await readFile(log, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => Number(/psnr_avg:(\S+)/.exec(line)?.[1]));
    expect(psnr).toHaveLength(sent.length);
    expect(Math.min(...psnr.slice(-2))).toBeGreaterThan(56);
  });
});
