/**
 * Entry point of the sample streaming application (`npm run streamer -- --signaling-port P --media-port M`).
 * Whatever way it ends, its ffmpeg ends with it: killed here on signals and crashes, and on SIGKILL
 * ffmpeg sees EOF on its stdin.
 */
import { SECRET_ENV } from '../protocol/viewer-ticket.ts';
import { ArgumentError, parseArgs } from './args.ts';
import { startStreamer, type Streamer } from './app.ts';

const log = (line: string) => process.stderr.write(`[streamer] ${line}\n`);

let options;
try {
  options = parseArgs(process.argv.slice(2), process.env);
  // Read once; the encoder and anything else this process starts must not inherit it.
  delete process.env[SECRET_ENV];
} catch (err) {
  if (!(err instanceof ArgumentError)) throw err;
  log(err.message);
  process.exit(2);
}

let streamer: Streamer | null = null;
let stopping = false;

const stop = (code: number) => {
  if (stopping) return;
  stopping = true;
  // close() kills ffmpeg synchronously before its first await, so an exit right after is safe.
  const closing = streamer?.close() ?? Promise.resolve();
  const force = setTimeout(() => process.exit(code), 2000);
  force.unref();
  void closing.finally(() => process.exit(code));
};

process.on('SIGTERM', () => stop(0));
process.on('SIGINT', () => stop(0));
process.on('SIGHUP', () => stop(0));
process.on('uncaughtException', (err) => {
  log(`crashed: ${err instanceof Error ? err.message : String(err)}`);
  stop(1);
});

try {
  streamer = await startStreamer(options, { log });
  log(
    `session ${options.sessionId}: signaling http://${options.host}:${streamer.signalingPort}/whep, ` +
      `media udp ${options.host}:${options.mediaPort}, ${options.width}x${options.height} at ${options.fps} fps`,
  );
} catch (err) {
  log(`could not start: ${err instanceof Error ? err.message : String(err)}`);
  stop(1);
}
