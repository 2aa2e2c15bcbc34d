// A program that beeps on a key, for bench/sound.ts on the display host: run in a terminal (xterm), it puts its
// tty in raw mode and writes 10 ms frames of raw 48 kHz stereo s16le in real time to a pacat of its own (10 ms
// latency) on the session's sound server: silence, or a 100 ms beep of 440 Hz from the next frame after a key. `tone` instead
// plays a 440 Hz tone for as long as it runs (pacat at 50 ms latency, as e2e/support/tone.mjs is played). `q` or
// Ctrl+C ends it. Plain JavaScript, Node's own modules only, so that the sandbox's /usr/bin/node runs it from the
// catalog's files; it spawns pacat itself so that the command typed into the terminal needs no shell syntax.
//
//   node bench/keybeep.mjs [tone]
import { spawn } from 'node:child_process';

const RATE = 48_000;
const FRAME_MS = 10;
const FRAME = (RATE * FRAME_MS) / 1000;
const AMPLITUDE = 0.33 * 32767;
const HZ = 440;
const BEEP_FRAMES = 10;
const RAMP = 48;
/** Frames written ahead of the clock, so that pacat never runs dry between two timers. */
const AHEAD = 1;
const tone = process.argv[2] === 'tone';

const pacat = spawn(
  'pacat',
  ['--raw', '--rate=48000', '--channels=2', '--format=s16le', `--latency-msec=${tone ? 50 : 10}`],
  { stdio: ['pipe', 'inherit', 'inherit'] },
);
pacat.stdin.on('error', () => process.exit(0));
pacat.on('exit', () => process.exit(0));

let phase = 0;
/** Samples of sound left (0: silence). */
let left = tone ? Infinity : 0;
let at = 0;

function frame() {
  const chunk = Buffer.alloc(FRAME * 4);
  for (let i = 0; i < FRAME && left > 0; i++, left--, at++) {
    const ramp = Math.min(1, at / RAMP, left / RAMP);
    const v = Math.round(AMPLITUDE * ramp * Math.sin(phase));
    phase = (phase + (2 * Math.PI * HZ) / RATE) % (2 * Math.PI);
    chunk.writeInt16LE(v, i * 4);
    chunk.writeInt16LE(v, i * 4 + 2);
  }
  return chunk;
}

const started = performance.now();
let made = 0;
let timer = null;

function tick() {
  const due = Math.floor((performance.now() - started) / FRAME_MS) + 1 + AHEAD;
  // Behind by more than a few frames (a busy machine): drop them rather than burst.
  if (due - made > 5) made = due - 1;
  if (tone) {
    // pacat's buffer paces a tone: keep its pipe full.
    while (pacat.stdin.write(frame()));
    pacat.stdin.once('drain', tick);
    return;
  }
  while (made < due) {
    pacat.stdin.write(frame());
    made++;
  }
  timer = setTimeout(tick, started + made * FRAME_MS - AHEAD * FRAME_MS - performance.now());
}

function quit() {
  clearTimeout(timer);
  pacat.stdin.end();
  setTimeout(() => process.exit(0), 200);
}

if (process.stdin.isTTY) process.stdin.setRawMode(true);
process.stdin.on('data', (data) => {
  if (data.includes(3) || data.includes(0x71)) return quit();
  if (tone) return;
  // A key: the beep starts with the next frame due (within 10 ms). Restarting the clock here would write frames
  // ahead of those already queued, and pacat's queue would grow with every key.
  left = BEEP_FRAMES * FRAME;
  at = 0;
});
process.stdin.on('end', quit);
tick();
