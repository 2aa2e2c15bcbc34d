// A program's sound for the tests: a sine (440 Hz unless told) as raw 48 kHz stereo s16le on stdout, for ever or
// for the seconds given, for `pacat --raw` to play on the session's sound server (catalogs.ts `toneApplication`).
// Plain JavaScript with no imports, so that the sandbox's /usr/bin/node runs it from the catalog's files.
//
//   node tone.mjs [seconds] [hz]
const RATE = 48_000;
const AMPLITUDE = 8_000;
/** 100 ms per write: pacat's buffer paces the writes, the pipe blocking while it is full. */
const CHUNK = RATE / 10;

const seconds = Number(process.argv[2] ?? Infinity);
const hz = Number(process.argv[3] ?? 440);
const total = seconds * RATE;
let n = 0;

function more() {
  while (n < total) {
    const frames = Math.min(CHUNK, total - n);
    const chunk = Buffer.alloc(frames * 4);
    for (let i = 0; i < frames; i++, n++) {
      const v = Math.round(AMPLITUDE * Math.sin((2 * Math.PI * hz * n) / RATE));
      chunk.writeInt16LE(v, i * 4);
      chunk.writeInt16LE(v, i * 4 + 2);
    }
    if (!process.stdout.write(chunk)) return void process.stdout.once('drain', more);
  }
}

// The reader gone (pacat stopped) ends the tone quietly.
process.stdout.on('error', () => process.exit(0));
more();
