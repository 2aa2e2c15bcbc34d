/**
 * The picture VP8 gives of a terminal and of a 3D view, with the project's own encoder arguments (videoArgs, TO_YUV)
 * and with candidate changes, on the same clips in the same run:
 *   PSNR      against the source, in RGB as the viewer sees it, each frame weighted by how long it stays on screen
 *   SSIM      the same, unweighted
 *   still     the worst PSNR from a second after the last change to the clip's end: the picture that stays on
 *             screen (issue 34, item 11: faint grey rectangles where text changed, blocks in F3D's background)
 *   Mbit/s    the encoded stream over the clip
 *   CPU       the encoder's user + sys seconds (ffmpeg's, from /usr/bin/time), and a frame's over the conversion's
 * Clips, 1280x720 in a private Xvfb: an xterm as the catalog's Terminal (DejaVu Sans Mono 13, #1d1f21), a screen of
 * lines replaced in bursts by fewer, then still; F3D as the catalog's Model Viewer (torus-knot.obj, grid) rotating
 * for a second, then still (frames rendered by f3d --output, an angle every second frame).
 * The frames reach the encoder as the display host sends them (display/capture.ts): a frame when the picture
 * changed, at most `fps` a second, repeated 5 ms and a frame later, then once a second while nothing changes; each
 * stamped with its time in ms, as the encoder's wall clock would. Usage: npm run bench -- encoding
 * (BENCH_ENCODING_ALL=1: other suspects too; BENCH_ENCODING_FRAMES=1: each frame's PSNR; BENCH_KEEP=1: the clips
 * and encodes are kept, for a look.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TO_YUV, videoArgs, type EncoderSize } from '../streamer/media/ffmpeg-args.ts';
import { median } from './stats';

const root = path.resolve(import.meta.dirname, '..');
const SIZE: EncoderSize = { width: 1280, height: 720, fps: 30 };
const FRAME_BYTES = SIZE.width * SIZE.height * 4;
const FRAME_MS = 1000 / SIZE.fps;
/** Encodes of each set of arguments, for the median of their CPU (the machine is shared)... */
const REPEATS = Number(process.env.BENCH_ENCODING_REPEATS ?? 3);
/** ...each of the clip played this many times over, for more CPU seconds than the clock's 10 ms steps. */
const CPU_LOOPS = 3;
/** The picture that stays: what is sent from this long after the last change to the clip's end (ms). */
const STILL_AFTER_MS = 1000;
/** The terminal clip's length in frames (7 s). */
const TERMINAL_FRAMES = 210;
/**
 * What the terminal does: a screen of lines, already there when the clip starts; then, from when the recording has
 * begun (the file `go`), bursts of new text in place of the old (a clear and fewer lines each time), then nothing.
 */
const terminalScript = (go: string) =>
  [
    'ls -l /usr/bin | head -n 40',
    `while [ ! -e ${go} ]; do sleep 0.05; done`,
    'sleep 0.5',
    'for n in 34 26 18 10; do clear; ls -l /usr/lib | head -n $n; sleep 0.4; done',
    'for i in 1 2 3; do echo "build step $i of 3: compiling streamer/media/encoder.ts"; sleep 0.3; done',
    'printf "$ "',
    'sleep 60',
  ].join('; ');
/** The 3D clip: still, rotating (an angle every second frame), still. */
const F3D_ANGLES = Array.from({ length: 16 }, (_, i) => i * 6);
const F3D_BEFORE = 10;
const F3D_AFTER = 75;

const children = new Set<ChildProcess>();
let dir = '';

function run(cmd: string, args: string[], opts: { stdio?: 'ignore' | 'pipe'; env?: NodeJS.ProcessEnv } = {}) {
  const child = spawn(cmd, args, {
    cwd: root,
    stdio: ['ignore', 'ignore', opts.stdio ?? 'pipe'],
    env: opts.env ?? process.env,
  });
  children.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<string>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      children.delete(child);
      if (code === 0) resolve(stderr);
      else reject(new Error(`${cmd} ${code ?? signal}: ${stderr.slice(-2000)}`));
    });
  });
  return { child, done };
}

/** Stops every process this bench started that is still running. */
function stopAll(signal: NodeJS.Signals = 'SIGTERM') {
  for (const child of children) child.kill(signal);
}

/** Stops them, and waits until they are gone (SIGKILL for any still there after 2 s). */
async function stopAndWait() {
  const gone = [...children].map((child) => new Promise((resolve) => child.once('close', resolve)));
  stopAll();
  const late = setTimeout(() => stopAll('SIGKILL'), 2000);
  await Promise.all(gone);
  clearTimeout(late);
}

/** A private X server; resolves with its display name. */
async function startXvfb(): Promise<string> {
  const child = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x720x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  child.on('close', () => children.delete(child));
  const fd = child.stdio[3] as NodeJS.ReadableStream;
  return new Promise((resolve, reject) => {
    let text = '';
    fd.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(`:${text.trim()}`);
    });
    child.on('close', () => reject(new Error('Xvfb ended before it gave its display')));
  });
}

/** Frame `i` of a raw bgr0 clip. */
function frameOf(file: string, i: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(FRAME_BYTES);
    readSync(fd, buf, 0, FRAME_BYTES, i * FRAME_BYTES);
    return buf;
  } finally {
    closeSync(fd);
  }
}

/** A clip: `count` frames at `fps`, frame i in `file` at frame `slot[i]` (repeated frames share a slot). */
interface Clip {
  name: string;
  file: string;
  count: number;
  slot: number[];
}

async function recordTerminal(display: string): Promise<Clip> {
  const file = path.join(dir, 'terminal.raw');
  const go = path.join(dir, 'go');
  const env = { ...process.env, DISPLAY: display, LANG: 'C.UTF-8' };
  const term = run(
    'xterm',
    [
      ...['-fa', 'DejaVu Sans Mono', '-fs', '13', '-bg', '#1d1f21', '-fg', '#e0e0e0', '-cr', '#7cc4ff'],
      ...['-geometry', '156x40+0+0', '-e', 'sh', '-c', terminalScript(go)],
    ],
    { env, stdio: 'ignore' },
  );
  term.done.catch(() => undefined);
  // The terminal's first screen drawn (a busy machine may take a while to start it).
  await sleep(2500);
  const grab = run(
    'ffmpeg',
    [
      ...['-hide_banner', '-loglevel', 'error', '-f', 'x11grab', '-draw_mouse', '0'],
      ...['-framerate', String(SIZE.fps)],
      ...['-video_size', `${SIZE.width}x${SIZE.height}`, '-i', display],
      ...['-frames:v', String(TERMINAL_FRAMES), '-f', 'rawvideo', '-pix_fmt', 'bgr0', '-y', file],
    ],
    { env },
  );
  await sleep(300);
  await writeFile(go, '');
  await grab.done;
  term.child.kill('SIGTERM');
  const count = Math.floor(statSync(file).size / FRAME_BYTES);
  return { name: 'terminal', file, count, slot: Array.from({ length: count }, (_, i) => i) };
}

async function recordF3d(display: string): Promise<Clip> {
  const env = { ...process.env, DISPLAY: display };
  const png = (i: number) => path.join(dir, `f3d-${String(i).padStart(2, '0')}.png`);
  // Two renders at a time: two cores.
  for (let i = 0; i < F3D_ANGLES.length; i += 2) {
    await Promise.all(
      F3D_ANGLES.slice(i, i + 2).map(
        (angle, j) =>
          run(
            'f3d',
            [
              ...['models/torus-knot.obj', '--grid', '--filename', '--up=+Z'],
              ...[`--resolution=${SIZE.width},${SIZE.height}`, `--camera-azimuth-angle=${angle}`],
              `--output=${png(i + j)}`,
            ],
            { env },
          ).done,
      ),
    );
  }
  const file = path.join(dir, 'f3d.raw');
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-i', path.join(dir, 'f3d-%02d.png')],
    ...['-f', 'rawvideo', '-pix_fmt', 'bgr0', '-y', file],
  ]).done;
  const last = F3D_ANGLES.length - 1;
  const slot = [
    ...Array<number>(F3D_BEFORE).fill(0),
    ...F3D_ANGLES.flatMap((_, i) => [i, i]),
    ...Array<number>(F3D_AFTER).fill(last),
  ];
  return { name: 'F3D', file, count: slot.length, slot };
}

/** A frame the display host sends: which of the clip's, and when (ms from its start). */
interface Send {
  frame: number;
  ms: number;
}

/**
 * When the display host would send which frame: its capture on change, repeats and idle refresh (not its byte
 * budget, which holds frames back only while a terminal scrolls). Also when the picture last changed (ms).
 */
function schedule(clip: Clip): { sends: Send[]; lastChange: number } {
  // Which frames show the same picture as the one before.
  const version: number[] = [];
  let previous = frameOf(clip.file, clip.slot[0]!);
  for (let i = 0; i < clip.count; i++) {
    const same = i === 0 || clip.slot[i] === clip.slot[i - 1];
    const frame: Buffer = same ? previous : frameOf(clip.file, clip.slot[i]!);
    version.push(i === 0 ? 0 : previous.equals(frame) ? version[i - 1]! : version[i - 1]! + 1);
    previous = frame;
  }
  const end = clip.count * FRAME_MS;
  const sends: Send[] = [{ frame: 0, ms: 0 }];
  let lastChange = 0;
  let last = 0;
  let shown = 0;
  let repeats = 2;
  for (;;) {
    const quiet = repeats === 2 ? 5 : repeats === 1 ? FRAME_MS : 1000;
    let change = Infinity;
    for (let i = Math.floor(last / FRAME_MS) + 1; i < clip.count; i++) {
      if (version[i] !== version[shown]) {
        change = i * FRAME_MS;
        break;
      }
    }
    const due = change < last + quiet ? Math.max(last + FRAME_MS, change) : last + quiet;
    if (due >= end) break;
    const frame = Math.min(clip.count - 1, Math.floor(due / FRAME_MS + 1e-9));
    const showed = version[frame] !== version[shown];
    const isolated = due - last > 2 * FRAME_MS;
    repeats = showed ? (isolated ? 2 : 1) : Math.max(0, repeats - 1);
    if (showed) lastChange = due;
    sends.push({ frame, ms: due });
    last = due;
    shown = frame;
  }
  // Whole milliseconds, as the encoder's clock stamps them.
  const out: Send[] = [];
  for (const s of sends) {
    const ms = Math.round(s.ms);
    if (out.length === 0 || ms > out[out.length - 1]!.ms) out.push({ frame: s.frame, ms });
  }
  return { sends: out, lastChange };
}

/**
 * The sent frames one after another in a raw file, and a filter that stamps each with its time (ms; the raw input's
 * time base is 1 ms, as the encoder's own input is).
 */
async function sentFrames(clip: Clip, sends: Send[]): Promise<{ file: string; stamps: string }> {
  const end = Math.round(clip.count * FRAME_MS);
  const file = path.join(dir, `${clip.name}-sent.raw`);
  const fd = openSync(file, 'w');
  try {
    for (const s of sends) writeSync(fd, frameOf(clip.file, clip.slot[s.frame]!));
  } finally {
    closeSync(fd);
  }
  // Played again (CPU_LOOPS), each play follows the one before.
  const K = sends.length;
  let expression = String(sends[K - 1]!.ms);
  for (let k = K - 2; k >= 0; k--) expression = `if(eq(mod(N,${K}),${k}),${sends[k]!.ms},${expression})`;
  return { file, stamps: `setpts='${expression}+floor(N/${K})*${end}'` };
}

/** A candidate: the project's libvpx arguments with some replaced (a value), removed (null) or added. */
interface Candidate {
  name: string;
  changes: Record<string, string | null>;
  extra?: boolean;
}

function argsOf(candidate: Candidate): string[] {
  const args = videoArgs('libvpx', SIZE);
  for (const [flag, value] of Object.entries(candidate.changes)) {
    const at = args.indexOf(flag);
    if (at >= 0 && value === null) args.splice(at, 2);
    else if (at >= 0) args[at + 1] = value!;
    else if (value !== null) args.push(flag, value);
  }
  return args;
}

const CANDIDATES: Candidate[] = [
  { name: 'project (static-thresh 100)', changes: {} },
  // What static-thresh was before issue 34, item 11, and either side of the 100 chosen then.
  { name: 'static-thresh 1000 (before)', changes: { '-static-thresh': '1000' } },
  { name: 'static-thresh 0', changes: { '-static-thresh': '0' } },
  { name: 'static-thresh 300', changes: { '-static-thresh': '300' } },
  // BENCH_ENCODING_ALL=1: also these, which changed little (issue 34, item 11's other suspects).
  { name: 'qmax 48', changes: { '-qmax': '48' }, extra: true },
  { name: 'no error-resilient', changes: { '-error-resilient': null }, extra: true },
  { name: 'no undershoot-pct', changes: { '-undershoot-pct': null }, extra: true },
];

interface Figures {
  psnr: number;
  ssim: number;
  still: number;
  mbps: number;
  cpu: number;
  /** PSNR of each frame sent. */
  perFrame: number[];
}

/** Sent frames, and how to read them: the raw input's arguments, each frame stamped with its time. */
interface Source {
  clip: Clip;
  sends: Send[];
  /** When the picture last changed (ms). */
  lastChange: number;
  input: string[];
  stamps: string;
}

/**
 * Encodes the sent frames with `args` (null: only their conversion to 4:2:0) into `keep` (the clip once), or for the
 * encoder's user + sys seconds, to nowhere (the clip CPU_LOOPS times).
 */
async function encode(source: Source, args: string[] | null, keep: string | null): Promise<number> {
  const times = path.join(dir, `${Math.random().toString(36).slice(2)}.time`);
  await run('/usr/bin/time', [
    ...['-f', '%U %S', '-o', times, 'ffmpeg', '-hide_banner', '-loglevel', 'error', '-y'],
    ...(keep ? [] : ['-stream_loop', String(CPU_LOOPS - 1)]),
    ...source.input,
    ...['-an', '-vf', source.stamps, ...TO_YUV, '-fps_mode', 'passthrough'],
    // Without an encoder: the frames converted and kept raw, or for the CPU that takes, handed on.
    ...(args ?? (keep ? ['-c:v', 'rawvideo'] : [])),
    ...(keep ? ['-f', args ? 'ivf' : 'nut', keep] : ['-f', 'null', '-']),
  ]).done;
  const [user, sys] = (await readFile(times, 'utf8')).trim().split('\n').pop()!.split(' ').map(Number);
  return user! + sys!;
}

/** `encoded` against the frames sent: PSNR and SSIM of each frame, in RGB. */
async function compare(source: Source, encoded: string): Promise<{ psnr: number[]; ssim: number[] }> {
  const psnrLog = `${encoded}.psnr`;
  const ssimLog = `${encoded}.ssim`;
  // Frame by frame: both are stamped with their index.
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-i', encoded, ...source.input],
    '-lavfi',
    '[0:v]settb=1/1000,setpts=N,format=gbrp,split[a1][a2];[1:v]settb=1/1000,setpts=N,format=gbrp,split[b1][b2];' +
      `[a1][b1]psnr=stats_file=${psnrLog};[a2][b2]ssim=stats_file=${ssimLog}`,
    ...['-fps_mode', 'passthrough', '-f', 'null', '-'],
  ]).done;
  const field = (line: string, key: string) => {
    const value = new RegExp(`${key}:(\\S+)`).exec(line)?.[1];
    return value === 'inf' ? 100 : Number(value);
  };
  const lines = async (file: string) => (await readFile(file, 'utf8')).trim().split('\n');
  return {
    psnr: (await lines(psnrLog)).map((l) => field(l, 'psnr_avg')),
    ssim: (await lines(ssimLog)).map((l) => field(l, 'All')),
  };
}

/** The figures of one set of arguments: the quality of one encode, the median CPU of `REPEATS`. */
async function measure(source: Source, name: string, args: string[] | null): Promise<Figures> {
  const { clip, sends, lastChange } = source;
  const kept = path.join(dir, `${clip.name}-${name.replace(/[^\w]+/g, '-')}.${args ? 'ivf' : 'nut'}`);
  await encode(source, args, kept);
  const cpu: number[] = [];
  for (let i = 0; i < REPEATS; i++) cpu.push(await encode(source, args, null));
  const { psnr, ssim } = await compare(source, kept);
  if (psnr.length !== sends.length) throw new Error(`${psnr.length} frames decoded of ${sends.length} sent`);
  const end = clip.count * FRAME_MS;
  let weighted = 0;
  let still = Infinity;
  sends.forEach((s, k) => {
    weighted += psnr[k]! * ((sends[k + 1]?.ms ?? end) - s.ms);
    if (s.ms >= lastChange + STILL_AFTER_MS) still = Math.min(still, psnr[k]!);
  });
  // The IVF file's payload: 32 bytes of header, 12 before each frame.
  const bytes = statSync(kept).size - 32 - 12 * sends.length;
  return {
    psnr: weighted / end,
    ssim: ssim.reduce((a, b) => a + b, 0) / ssim.length,
    still,
    mbps: args ? (bytes * 8) / (end / 1000) / 1e6 : NaN,
    cpu: median(cpu) / CPU_LOOPS,
    perFrame: psnr,
  };
}

/** Runs `jobs` two at a time (two cores). */
async function twoAtATime<T>(jobs: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]!();
    }
  };
  await Promise.all([worker(), worker()]);
  return results;
}

function report(source: Source, rows: [string, Figures][]) {
  const { clip, sends, lastChange } = source;
  const seconds = (clip.count * FRAME_MS) / 1000;
  console.log(
    `\n${clip.name}: ${SIZE.width}x${SIZE.height}, ${seconds.toFixed(1)} s, ${sends.length} frames sent of ` +
      `${clip.count}, still from ${(lastChange / 1000).toFixed(2)} s`,
  );
  console.log(
    `  ${'arguments'.padEnd(30)} ${'PSNR dB'.padStart(8)} ${'SSIM'.padStart(7)} ${'still dB'.padStart(9)}` +
      ` ${'Mbit/s'.padStart(7)} ${'CPU s'.padStart(6)} ${'ms/frame'.padStart(9)}`,
  );
  const convert = rows[0]![1].cpu;
  for (const [name, f] of rows) {
    const encoder = name === rows[0]![0] ? '' : (((f.cpu - convert) * 1000) / sends.length).toFixed(1);
    console.log(
      `  ${name.padEnd(30)} ${f.psnr.toFixed(2).padStart(8)} ${f.ssim.toFixed(4).padStart(7)} ` +
        `${f.still.toFixed(2).padStart(9)} ${(Number.isNaN(f.mbps) ? '' : f.mbps.toFixed(2)).padStart(7)} ` +
        `${f.cpu.toFixed(2).padStart(6)} ${encoder.padStart(9)}`,
    );
  }
  if (process.env.BENCH_ENCODING_FRAMES) {
    for (const [name, f] of rows) console.log(`  ${name}: ${f.perFrame.map((p) => p.toFixed(1)).join(' ')}`);
    console.log(`  sent at ms: ${sends.map((s) => s.ms).join(' ')}`);
  }
}

async function main() {
  dir = await mkdtemp(path.join(tmpdir(), 'streamgate-encoding-'));
  const display = await startXvfb();
  const clips = [await recordTerminal(display), await recordF3d(display)];
  await stopAndWait();
  const candidates = CANDIDATES.filter((c) => !c.extra || process.env.BENCH_ENCODING_ALL);
  for (const clip of clips) {
    const { sends, lastChange } = schedule(clip);
    const sent = await sentFrames(clip, sends);
    const input = ['-f', 'rawvideo', '-pix_fmt', 'bgr0', '-s', `${SIZE.width}x${SIZE.height}`];
    const source: Source = {
      clip,
      sends,
      lastChange,
      input: [...input, '-framerate', '1000', '-i', sent.file],
      stamps: sent.stamps,
    };
    const jobs = [
      () => measure(source, 'yuv420p', null),
      ...candidates.map((c) => () => measure(source, c.name, argsOf(c))),
    ];
    const figures = await twoAtATime(jobs);
    report(source, [
      ['4:2:0 only (TO_YUV)', figures[0]!],
      ...candidates.map((c, i): [string, Figures] => [c.name, figures[i + 1]!]),
    ]);
  }
  console.log(
    [
      '\n  PSNR: in RGB against the source, each frame weighted by its time on screen; SSIM: the mean of the',
      `  frames sent; still: the worst PSNR sent from ${STILL_AFTER_MS / 1000} s after the last change on. CPU:`,
      `  ffmpeg's user+sys seconds for the clip (median of ${REPEATS}), its conversion to 4:2:0 included;`,
      "  ms/frame: the encoder's own, a frame sent.",
    ].join('\n'),
  );
}

async function cleanup() {
  await stopAndWait();
  if (dir && !process.env.BENCH_KEEP) await rm(dir, { recursive: true, force: true });
  else if (dir) console.log(`kept ${dir}`);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanup().then(() => process.exit(130)));
}
process.on('exit', () => stopAll('SIGKILL'));

try {
  await main();
  await cleanup();
} catch (error) {
  console.error(error);
  await cleanup();
  process.exit(1);
}
