/**
 * Entry point of the sample streaming application: started by the service with its launch in its environment
 * (protocol/launch.ts), or by hand (`npm run streamer -- --signaling-port P --media-port M`). Whatever way it ends,
 * its ffmpeg ends with it: killed here on signals and crashes, and on SIGKILL ffmpeg sees EOF on its stdin.
 */
import { LaunchError, parseLaunch, type Launch } from '../../protocol/launch.ts';
import { startStreamer, type Streamer } from './app.ts';
import { installStop, servingLine } from '../runtime/lifecycle.ts';

const log = (line: string) => process.stderr.write(`[streamer] ${line}\n`);

let options: Launch;
try {
  options = parseLaunch(process.argv.slice(2), process.env);
} catch (err) {
  if (!(err instanceof LaunchError)) throw err;
  log(err.message);
  process.exit(2);
}

let streamer: Streamer | null = null;
// close() stops ffmpeg with the rest of the application; on SIGKILL ffmpeg sees EOF on its stdin.
const stop = installStop({ log, graceMs: 2_000 }, () => streamer?.close() ?? Promise.resolve());

try {
  streamer = await startStreamer(options, { log });
  log(servingLine(options, streamer.signalingPort));
  const { code, reason } = await streamer.done;
  stop(code, reason);
} catch (err) {
  stop(1, `could not start: ${err instanceof Error ? err.message : String(err)}`);
}
