// A program that beeps on a key, for bench/sound.ts on the display host: run in a terminal (xterm), it puts its
// tty in raw mode and, on each key, writes a 100 ms beep of 440 Hz (raw 48 kHz stereo s16le) at once to a pacat of
// its own (10 ms latency) on the session's sound server, as a program that plays a sound on a key does; between
// beeps pacat's stream runs dry and PulseAudio waits for the next one. (An earlier version wrote 10 ms frames of
// silence on its own clock: on a busy machine each late timer left its frames queued in pacat's pipe for good, and
// the beeper itself fell 50 to 600 ms behind over a run; see docs/performance.md, "Sound".) `tone` instead plays a
// 440 Hz tone for as long as it runs (pacat at 50 ms latency, as e2e/support/tone.mjs is played). `q` or Ctrl+C
// ends it. Plain JavaScript, Node's own modules only, so that the sandbox's /usr/bin/node runs it from the
// catalog's files; it spawns pacat itself so that the command typed into the terminal needs no shell syntax.
//
//   node bench/keybeep.mjs [tone]
import { spawn } from 'node:child_process';

const RATE = 48_000;
const AMPLITUDE = 0.33 * 32767;
const HZ = 440;
const BEEP_SAMPLES = RATE / 10;
const RAMP = 48;
/** A second of tone, written again whenever pacat has taken the last. */
const TONE_SAMPLES = RATE;
const tone = process.argv[2] === 'tone';

const pacat = spawn(
  'pacat',
  ['--raw', '--rate=48000', '--channels=2', '--format=s16le', `--latency-msec=${tone ? 50 : 10}`],
  { stdio: ['pipe', 'inherit', 'inherit'] },
);
pacat.stdin.on('error', () => process.exit(0));
pacat.on('exit', () => process.exit(0));

/** `samples` of the 440 Hz sine, ramped in and out over RAMP samples unless `ramp` is false. */
function sine(samples, ramp) {
  const chunk = Buffer.alloc(samples * 4);
  for (let i = 0; i < samples; i++) {
    const level = ramp ? Math.min(1, i / RAMP, (samples - i) / RAMP) : 1;
    const v = Math.round(AMPLITUDE * level * Math.sin((2 * Math.PI * HZ * i) / RATE));
    chunk.writeInt16LE(v, i * 4);
    chunk.writeInt16LE(v, i * 4 + 2);
  }
  return chunk;
}

const beep = sine(BEEP_SAMPLES, true);
// A whole number of periods (440 in a second), so that one second follows the last without a click.
const second = sine(TONE_SAMPLES, false);

function playTone() {
  // pacat's buffer paces a tone: keep its pipe full.
  while (pacat.stdin.write(second));
  pacat.stdin.once('drain', playTone);
}

function quit() {
  pacat.stdin.end();
  setTimeout(() => process.exit(0), 200);
}

if (process.stdin.isTTY) process.stdin.setRawMode(true);
process.stdin.on('data', (data) => {
  if (data.includes(3) || data.includes(0x71)) return quit();
  if (!tone) pacat.stdin.write(beep);
});
process.stdin.on('end', quit);
if (tone) playTone();
