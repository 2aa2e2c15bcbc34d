/**
 * Entry point of the display host: `node --import tsx streamer/display/main.ts <flags> -- program args...`,
 * with the flags of the sample application (streamer/args.ts) and the program's own environment in
 * STREAMGATE_PROGRAM_ENV (JSON), its sandbox's settings in STREAMGATE_SANDBOX (JSON, program-sandbox.ts), and for
 * a program that opens files, which and how in STREAMGATE_OPENS and STREAMGATE_OPEN_COMMAND (file-opening.ts). It
 * exits when the session's program does (the one it runs last: opening a file replaces it, program-life.ts): 0
 * when the program exited 0, else 1, after a last line saying why. Everything it started (display, program, its sound server and capture, encoder)
 * stops with it; STREAMGATE_AUDIO=off (a profile's `audio: false`) starts no sound server at all.
 */
import { ArgumentError, parseArgs } from '../transport/args.ts';
import { startDisplayHost, type DisplayHost } from './display-host.ts';
import { fileOpening } from './file-opening.ts';
import { SANDBOX_ENV, sandboxSettings } from './program-sandbox.ts';
import { installStop, servingLine } from '../transport/lifecycle.ts';

const log = (line: string) => process.stderr.write(`[display] ${line}\n`);

function programEnv(raw: string | undefined): Record<string, string> {
  if (!raw) return {};
  const parsed: unknown = JSON.parse(raw);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new ArgumentError('STREAMGATE_PROGRAM_ENV must be a JSON object.');
  return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
}

const argv = process.argv.slice(2);
const split = argv.indexOf('--');
let options;
let program;
let sandboxing;
try {
  if (split < 0 || split === argv.length - 1) throw new ArgumentError('Name the program after --.');
  options = parseArgs(argv.slice(0, split), process.env);
  program = {
    command: argv.slice(split + 1),
    env: programEnv(process.env.STREAMGATE_PROGRAM_ENV),
    opengl: process.env.STREAMGATE_OPENGL !== '0',
    opening: fileOpening(process.env),
  };
  sandboxing = sandboxSettings(process.env[SANDBOX_ENV]);
} catch (err) {
  log(err instanceof Error ? err.message : String(err));
  process.exit(2);
}

let host: DisplayHost | null = null;
const stop = installStop({ log, graceMs: 5_000 }, () => host?.close() ?? Promise.resolve());

try {
  host = await startDisplayHost(options, program, log, sandboxing);
  log(servingLine(options, host.signalingPort));
  const { code, reason } = await host.done;
  stop(code, reason);
} catch (err) {
  stop(1, `could not start: ${err instanceof Error ? err.message : String(err)}`);
}
