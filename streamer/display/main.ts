/**
 * Entry point of the display host: started by the service with its launch in its environment (protocol/launch.ts:
 * the sample application's items, and the program with its own environment, its sandbox's settings and what it
 * opens of the session's files), or by hand with the sample application's flags and the program after `--`
 * (`node --import tsx streamer/display/main.ts <flags> -- program args...`). It exits when the session's program
 * does (the one it runs last: opening a file replaces it, program-life.ts): 0 when the program exited 0, else 1,
 * after a last line saying why. Everything it started (display, program, its sound server and capture, encoder)
 * stops with it; a launch without sound (a profile's `audio: false`) starts no sound server at all.
 */
import {
  LAUNCH_ENV,
  LaunchError,
  parseLaunch,
  type DisplayLaunch,
  type Launch,
} from '../../protocol/launch.ts';
import { startDisplayHost, type DisplayHost } from './display-host.ts';
import { installStop, servingLine } from '../runtime/lifecycle.ts';

const log = (line: string) => process.stderr.write(`[display] ${line}\n`);

let options: Launch;
let program: DisplayLaunch;
try {
  options = parseLaunch(process.argv.slice(2), process.env);
  if (!options.display)
    throw new LaunchError(`Name the program after -- (or in ${LAUNCH_ENV.program}, as a JSON array).`);
  program = options.display;
} catch (err) {
  log(err instanceof Error ? err.message : String(err));
  process.exit(2);
}

let host: DisplayHost | null = null;
const stop = installStop({ log, graceMs: 5_000 }, () => host?.close() ?? Promise.resolve());

try {
  host = await startDisplayHost(options, program, log, program.sandbox);
  log(servingLine(options, host.signalingPort));
  const { code, reason } = await host.done;
  stop(code, reason);
} catch (err) {
  stop(1, `could not start: ${err instanceof Error ? err.message : String(err)}`);
}
