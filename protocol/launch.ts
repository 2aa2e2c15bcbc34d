/**
 * What a session's application is started with: one typed description, built once by the service's runner
 * (`launchEnvironment`, server/runners/local-command.ts) and parsed once by the application (`parseLaunch`, the
 * sample application's and the display host's main.ts).
 *
 * It travels in the application's environment, one variable per item, all named here (LAUNCH_ENV), and never on
 * its command line: a command line is readable by every user of the machine (ps), an environment by its own user
 * only, and a program's environment or sandbox settings are structured values that a variable carries as JSON
 * without a second quoting. Applications that stream themselves (a catalog `launch.command`) read the same
 * variables for their session, ports and host. The viewer secret is never among them: the variable names the file
 * it is read from (protocol/viewer-ticket.ts).
 *
 * A person who starts an application by hand may spell the same items as flags (`--signaling-port 49100`, and a
 * display host's program after `--`); a flag wins over its variable. Nothing else is read.
 */
import { randomUUID } from 'node:crypto';
import { DEFAULT_LIMITS, type CgroupLimits } from '../sandbox/cgroups.ts';
import { DEFAULT_FILES_MB, MAX_FILES_MB, OPEN_COMMAND_ENV, OPENS_ENV } from './files.ts';
import { readSecretFile, SECRET_ENV, SECRET_FILE_ENV } from './viewer-ticket.ts';

/** The codecs a stream may have; one per session, since every viewer gets the same encoded packets. */
export type Codec = 'vp8' | 'h264';

/** Where a display host runs its program (sandbox/bwrap.ts): what the service decides for a session's program. */
export interface SandboxSettings {
  network: boolean;
  gpu: boolean;
  files?: { root: string; names: string[] };
  limits: CgroupLimits;
  /** The program's control-group folders, made by the service (which removes them when the session ends). */
  cgroup?: string[];
  /** The service's compiled seccomp filter, a file only the service's user reads. */
  seccompFile?: string;
}

/** What a program opens of the session's files, and how (a catalog version's `opens` and `open_command`). */
export interface FileOpening {
  /** Extensions, lower case, without their dot (`gz` or `tar.gz`). */
  extensions: ReadonlySet<string>;
  /** The command that opens a file; null: the program's own command with the file's path appended. */
  command: readonly string[] | null;
}

/** The program a display host streams (a catalog version's `launch.display`). */
export interface DisplayLaunch {
  command: string[];
  /** The program's own environment: it reaches the program only, not its host. */
  env: Record<string, string>;
  /** The display offers OpenGL (catalog `opengl`, default true). */
  opengl: boolean;
  /** The files it opens, which `openFile` restarts it with; null: none. */
  opening: FileOpening | null;
  sandbox: SandboxSettings;
}

/** Everything an application is started with, after defaults are applied. */
export interface Launch {
  sessionId: string;
  signalingPort: number;
  mediaPort: number;
  /** The address bound and advertised in the answer's one candidate. */
  host: string;
  appName: string;
  appVersion: string;
  profile: string;
  width: number;
  height: number;
  fps: number;
  /** The largest size a viewer's `resize` may ask for. */
  maxWidth: number;
  maxHeight: number;
  codec: Codec;
  /** Stream sound (CONTRACT §19): a profile's `audio: false` turns it off. */
  audio: boolean;
  /** Viewers at once; the next one is refused with 503. */
  maxViewers: number;
  /** The session folder's size in MB (a profile's `files_mb`). */
  filesMb: number;
  /** Seconds a display host's encoder keeps running once nobody watches, before it rests; 0: it never rests. */
  encoderRestS: number;
  /** Origins a browser may connect from; null: any (the application run alone). */
  allowedOrigins: string[] | null;
  /** The stage shown in the picture: the POST /stream body's `arguments.usd_stage_uri`. */
  usdStageUri: string;
  /** Where to keep a recent still of the picture (server/runners/still-files.ts); null: none. */
  stillPath: string | null;
  /** Draw the marks strip that tests and benchmarks read back (streamer/sample/marks.ts). */
  testMarks: boolean;
  /** The session's secret that signs its viewer tickets; null: any viewer is accepted. */
  viewerSecret: Uint8Array | null;
  /** The program of a display host; null for an application that draws its own picture. */
  display: DisplayLaunch | null;
}

/** What a runner says of a launch: the items it knows, written as the application reads them. */
export type LaunchItems = Partial<Omit<Launch, 'usdStageUri' | 'viewerSecret' | 'display'>> & {
  /** The POST /stream body's `arguments`, whole: an application that streams itself may read any of them. */
  arguments?: Record<string, unknown>;
  /** The file the application reads its viewer secret from (a pipe of the service's). */
  secretFile?: string;
  display?: DisplayLaunch;
};

/** The variable of each item. */
export const LAUNCH_ENV = {
  sessionId: 'STREAMGATE_SESSION_ID',
  signalingPort: 'STREAMGATE_SIGNALING_PORT',
  mediaPort: 'STREAMGATE_MEDIA_PORT',
  host: 'STREAMGATE_HOST',
  appName: 'STREAMGATE_APP_NAME',
  appVersion: 'STREAMGATE_APP_VERSION',
  profile: 'STREAMGATE_PROFILE',
  width: 'STREAMGATE_WIDTH',
  height: 'STREAMGATE_HEIGHT',
  fps: 'STREAMGATE_FPS',
  maxWidth: 'STREAMGATE_MAX_WIDTH',
  maxHeight: 'STREAMGATE_MAX_HEIGHT',
  codec: 'STREAMGATE_CODEC',
  audio: 'STREAMGATE_AUDIO',
  maxViewers: 'STREAMGATE_MAX_VIEWERS',
  filesMb: 'STREAMGATE_FILES_MB',
  encoderRestS: 'STREAMGATE_ENCODER_REST_S',
  allowedOrigins: 'STREAMGATE_ALLOWED_ORIGINS',
  arguments: 'STREAMGATE_ARGUMENTS',
  stillPath: 'STREAMGATE_STILL_PATH',
  testMarks: 'STREAMGATE_TEST_MARKS',
  secretFile: SECRET_FILE_ENV,
  program: 'STREAMGATE_PROGRAM',
  programEnv: 'STREAMGATE_PROGRAM_ENV',
  opengl: 'STREAMGATE_OPENGL',
  opens: OPENS_ENV,
  openCommand: OPEN_COMMAND_ENV,
  sandbox: 'STREAMGATE_SANDBOX',
} as const;

/**
 * How long an unwatched display session keeps its encoder: long enough for a reload or a dropped connection to come
 * back to a running one, short against a session left open for hours.
 */
export const DEFAULT_ENCODER_REST_S = 20;

/** A launch item that is missing, unknown or out of range; main.ts prints its message and exits 2. */
export class LaunchError extends Error {}

const integers = {
  signalingPort: { flag: '--signaling-port', range: [1, 65535] },
  mediaPort: { flag: '--media-port', range: [1, 65535] },
  width: { flag: '--width', range: [16, 7680] },
  height: { flag: '--height', range: [16, 4320] },
  fps: { flag: '--fps', range: [1, 120] },
  maxWidth: { flag: '--max-width', range: [16, 7680] },
  maxHeight: { flag: '--max-height', range: [16, 4320] },
  maxViewers: { flag: '--max-viewers', range: [1, 1000] },
  filesMb: { flag: '--files-mb', range: [1, MAX_FILES_MB] },
  encoderRestS: { flag: '--encoder-rest-s', range: [0, 86_400] },
} as const;

const texts = {
  sessionId: '--session-id',
  host: '--host',
  appName: '--app-name',
  appVersion: '--app-version',
  profile: '--profile',
  codec: '--codec',
  usdStageUri: '--usd-stage-uri',
} as const;

/** Flags without a value. */
const switches = { '--test-marks': 'testMarks', '--no-audio': 'noAudio' } as const;

type IntegerKey = keyof typeof integers;
type TextKey = keyof typeof texts;

/** What a person gave as flags: the items by name, and the program after `--`. */
interface Flags {
  integers: Partial<Record<IntegerKey, string>>;
  texts: Partial<Record<TextKey, string>>;
  switches: Set<string>;
  program: string[] | null;
}

function readFlags(argv: readonly string[]): Flags {
  const flags: Flags = { integers: {}, texts: {}, switches: new Set(), program: null };
  const integerFlags = new Map<string, IntegerKey>(
    Object.entries(integers).map(([key, { flag }]) => [flag, key as IntegerKey]),
  );
  const textFlags = new Map<string, TextKey>(
    Object.entries(texts).map(([key, flag]) => [flag, key as TextKey]),
  );
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      const rest = argv.slice(i + 1);
      flags.program = rest.length > 0 ? rest : null;
      break;
    }
    if (arg in switches) {
      flags.switches.add(switches[arg as keyof typeof switches]);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    const integerKey = integerFlags.get(flag);
    const textKey = textFlags.get(flag);
    if (integerKey === undefined && textKey === undefined) throw new LaunchError(`Unknown flag ${flag}.`);
    if (value === undefined) throw new LaunchError(`${flag} needs a value.`);
    if (integerKey !== undefined) flags.integers[integerKey] = value;
    if (textKey !== undefined) flags.texts[textKey] = value;
  }
  return flags;
}

/** Rounds down to an even number, as VP8 with 4:2:0 chroma needs. */
export function even(n: number): number {
  return Math.max(2, Math.floor(n / 2) * 2);
}

/**
 * Reads a launch from the application's environment and, for a person who started it by hand, its flags; throws
 * LaunchError with a sentence that names the bad item (its flag or its variable). The secret is read from its file
 * here, once: a pipe can be read only once.
 */
export function parseLaunch(argv: readonly string[], env: NodeJS.ProcessEnv = {}): Launch {
  const flags = readFlags(argv);
  const integer = (key: IntegerKey): number | undefined => {
    const { flag, range } = integers[key];
    const [name, text] =
      flags.integers[key] !== undefined
        ? [flag, flags.integers[key]]
        : [LAUNCH_ENV[key], env[LAUNCH_ENV[key]]];
    if (text === undefined) return undefined;
    if (!/^\d+$/.test(text)) throw new LaunchError(`${name} needs a whole number.`);
    const value = Number(text);
    const [min, max] = range;
    if (value < min || value > max) throw new LaunchError(`${name} must be between ${min} and ${max}.`);
    return value;
  };
  const text = (key: Exclude<TextKey, 'usdStageUri'>): string | undefined =>
    flags.texts[key] ?? (env[LAUNCH_ENV[key]]?.trim() || undefined);
  const signalingPort = integer('signalingPort');
  if (signalingPort === undefined)
    throw new LaunchError(`--signaling-port (or ${LAUNCH_ENV.signalingPort}) is required.`);
  const mediaPort = integer('mediaPort');
  if (mediaPort === undefined)
    throw new LaunchError(`--media-port (or ${LAUNCH_ENV.mediaPort}) is required.`);
  const codec = text('codec') ?? 'vp8';
  if (codec !== 'vp8' && codec !== 'h264')
    throw new LaunchError(`--codec (or ${LAUNCH_ENV.codec}) must be vp8 or h264.`);
  const audio = env[LAUNCH_ENV.audio]?.trim() || 'on';
  if (audio !== 'on' && audio !== 'off') throw new LaunchError(`${LAUNCH_ENV.audio} must be on or off.`);
  const maxWidth = even(integer('maxWidth') ?? 1920);
  const maxHeight = even(integer('maxHeight') ?? 1080);
  return {
    sessionId: text('sessionId') ?? randomUUID(),
    signalingPort,
    mediaPort,
    host: text('host') ?? '127.0.0.1',
    appName: text('appName') ?? 'Sample Streaming Application',
    appVersion: text('appVersion') ?? '0.0.0',
    profile: text('profile') ?? 'default',
    width: Math.min(even(integer('width') ?? 1280), maxWidth),
    height: Math.min(even(integer('height') ?? 720), maxHeight),
    fps: integer('fps') ?? 30,
    codec,
    audio: !flags.switches.has('noAudio') && audio === 'on',
    maxWidth,
    maxHeight,
    maxViewers: integer('maxViewers') ?? 8,
    filesMb: integer('filesMb') ?? DEFAULT_FILES_MB,
    encoderRestS: integer('encoderRestS') ?? DEFAULT_ENCODER_REST_S,
    allowedOrigins: originsOf(env[LAUNCH_ENV.allowedOrigins]),
    usdStageUri: flags.texts.usdStageUri ?? stageOf(env[LAUNCH_ENV.arguments]) ?? '',
    stillPath: env[LAUNCH_ENV.stillPath]?.trim() || null,
    // The environment too: a service started for tests passes it on to every application it starts.
    testMarks: flags.switches.has('testMarks') || env[LAUNCH_ENV.testMarks] === '1',
    viewerSecret: secretOf(env),
    display: displayOf(flags.program, env),
  };
}

/**
 * The environment that gives an application `items`: what a runner builds, and `parseLaunch` reads back. An item
 * left out is left to the application's default.
 */
export function launchEnvironment(items: LaunchItems): Record<string, string> {
  const env: Record<string, string> = {};
  const put = (name: string, value: string | number | undefined) => {
    if (value !== undefined) env[name] = String(value);
  };
  for (const key of Object.keys(integers) as IntegerKey[]) put(LAUNCH_ENV[key], items[key]);
  for (const key of ['sessionId', 'host', 'appName', 'appVersion', 'profile', 'codec'] as const)
    put(LAUNCH_ENV[key], items[key]);
  if (items.audio !== undefined) put(LAUNCH_ENV.audio, items.audio ? 'on' : 'off');
  if (items.allowedOrigins) put(LAUNCH_ENV.allowedOrigins, items.allowedOrigins.join(','));
  if (items.arguments) put(LAUNCH_ENV.arguments, JSON.stringify(items.arguments));
  put(LAUNCH_ENV.stillPath, items.stillPath ?? undefined);
  if (items.testMarks) put(LAUNCH_ENV.testMarks, '1');
  put(LAUNCH_ENV.secretFile, items.secretFile);
  const { display } = items;
  if (display) {
    put(LAUNCH_ENV.program, JSON.stringify(display.command));
    put(LAUNCH_ENV.programEnv, JSON.stringify(display.env));
    if (!display.opengl) put(LAUNCH_ENV.opengl, '0');
    if (display.opening) {
      put(LAUNCH_ENV.opens, [...display.opening.extensions].join(','));
      if (display.opening.command) put(LAUNCH_ENV.openCommand, JSON.stringify(display.opening.command));
    }
    put(LAUNCH_ENV.sandbox, JSON.stringify(display.sandbox));
  }
  return env;
}

/**
 * The stage URI from the `arguments` variable, if it names one. Malformed JSON is ignored rather than fatal: the
 * picture just shows no stage.
 */
function stageOf(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const uri = (parsed as Record<string, unknown>).usd_stage_uri;
      if (typeof uri === 'string') return uri;
    }
  } catch {
    // not JSON: nothing to take from it
  }
  return undefined;
}

/** Comma-separated origins; unset allows any. */
function originsOf(raw: string | undefined): string[] | null {
  if (raw === undefined || raw.trim() === '') return null;
  return raw
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
}

/**
 * The session's secret, from the file its variable names (the service's pipe). A secret in the environment is
 * refused: /proc/<pid>/environ keeps it for the life of the process, whatever is deleted.
 */
function secretOf(env: NodeJS.ProcessEnv): Uint8Array | null {
  if (env[SECRET_ENV] !== undefined)
    throw new LaunchError(
      `Pass the viewer secret in a file named by ${SECRET_FILE_ENV}, not in ${SECRET_ENV}.`,
    );
  try {
    return readSecretFile(env[SECRET_FILE_ENV]);
  } catch (error) {
    throw new LaunchError(`The viewer secret cannot be read: ${(error as Error).message}`);
  }
}

/** A variable holding JSON, parsed; `what` says what it must be when it is not JSON. */
function jsonOf(name: string, raw: string, what: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new LaunchError(`${name} must be ${what}.`);
  }
}

/** A display host's program: the flags' words after `--`, else the variable's; null when neither names one. */
function displayOf(words: string[] | null, env: NodeJS.ProcessEnv): DisplayLaunch | null {
  const raw = env[LAUNCH_ENV.program];
  const command = words ?? (raw ? jsonOf(LAUNCH_ENV.program, raw, 'a JSON array of strings') : null);
  if (command === null) return null;
  if (!isWords(command)) throw new LaunchError(`${LAUNCH_ENV.program} must be a JSON array of strings.`);
  return {
    command,
    env: programEnvOf(env[LAUNCH_ENV.programEnv]),
    opengl: env[LAUNCH_ENV.opengl] !== '0',
    opening: openingOf(env),
    sandbox: sandboxSettings(env[LAUNCH_ENV.sandbox]),
  };
}

function isWords(value: unknown): value is string[] {
  return Array.isArray(value) && value.length > 0 && value.every((word) => typeof word === 'string');
}

function programEnvOf(raw: string | undefined): Record<string, string> {
  if (!raw) return {};
  const what = 'a JSON object';
  const parsed = jsonOf(LAUNCH_ENV.programEnv, raw, what);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new LaunchError(`${LAUNCH_ENV.programEnv} must be ${what}.`);
  return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
}

// Letters, digits, `_`, `+` and `-`, with dots inside for extensions such as `tar.gz` (the catalog allows fewer).
const EXTENSION = /^[a-z0-9_+-]+(\.[a-z0-9_+-]+)*$/;

/** What the program opens; null when it opens no files. */
function openingOf(env: NodeJS.ProcessEnv): FileOpening | null {
  const opens = env[OPENS_ENV]?.trim();
  if (!opens) return null;
  const extensions = new Set<string>();
  for (const raw of opens.split(',')) {
    const extension = raw.trim().toLowerCase().replace(/^\./, '');
    if (!EXTENSION.test(extension)) {
      throw new LaunchError(
        `${OPENS_ENV} must be a comma list of file extensions such as "txt,png": “${raw.trim()}” is not one.`,
      );
    }
    extensions.add(extension);
  }
  return { extensions, command: openCommandOf(env[OPEN_COMMAND_ENV]) };
}

function openCommandOf(raw: string | undefined): string[] | null {
  if (raw === undefined || raw.trim() === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = null;
  }
  if (!isWords(parsed) || parsed[0] === '')
    throw new LaunchError(`${OPEN_COMMAND_ENV} must be a JSON array of strings, the program first.`);
  return parsed;
}

/**
 * The program's sandbox settings: the defaults (no network, no GPU, the default limits) under what the service
 * said. A host started by hand makes its own control group and filter (streamer/display/program-sandbox.ts).
 */
export function sandboxSettings(raw: string | undefined): SandboxSettings {
  const defaults: SandboxSettings = { network: false, gpu: false, limits: { ...DEFAULT_LIMITS } };
  if (raw === undefined || raw === '') return defaults;
  const parsed = jsonOf(LAUNCH_ENV.sandbox, raw, 'a JSON object');
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new LaunchError(`${LAUNCH_ENV.sandbox} must be a JSON object.`);
  const given = parsed as Partial<SandboxSettings>;
  return { ...defaults, ...given, limits: { ...DEFAULT_LIMITS, ...given.limits } };
}
