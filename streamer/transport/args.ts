/**
 * Command line and STREAMGATE_ARGUMENTS of the sample streaming application.
 * The service's local runner passes exactly these flags; keep them stable.
 */
import { randomUUID } from 'node:crypto';
import { readSecretFile, SECRET_ENV, SECRET_FILE_ENV } from '../../protocol/viewer-ticket.ts';
import { DEFAULT_FILES_MB, MAX_FILES_MB } from '../../protocol/files.ts';
import type { Codec } from './ffmpeg-args.ts';

/** Everything the application needs to start, after defaults are applied. */
export interface StreamerOptions {
  sessionId: string;
  signalingPort: number;
  mediaPort: number;
  host: string;
  appName: string;
  appVersion: string;
  profile: string;
  width: number;
  height: number;
  fps: number;
  /** The stream's codec (`--codec`, STREAMGATE_CODEC): vp8 (default) or h264. */
  codec: Codec;
  maxWidth: number;
  maxHeight: number;
  usdStageUri: string;
  /** Viewers at once; the next one is refused with 503. */
  maxViewers: number;
  /** Origins a browser may connect from; null: any (the application run alone). */
  allowedOrigins: string[] | null;
  /** The session's secret that signs its viewer tickets; null: any viewer is accepted. */
  viewerSecret: Uint8Array | null;
  /** Draw the marks strip that tests and benchmarks read back (marks.ts); people need not see it. */
  testMarks: boolean;
  /** Where to keep a recent still of the picture (STREAMGATE_STILL_PATH, from the service); null: none. */
  stillPath: string | null;
  /** The session folder's size in MB (`--files-mb`, STREAMGATE_FILES_MB: a profile's `files_mb`). */
  filesMb: number;
  /** Stream sound (CONTRACT §19); `--no-audio` or STREAMGATE_AUDIO=off (a profile's `audio: false`) turn it off. */
  audio: boolean;
}

/** A flag that is missing, unknown or out of range; main.ts prints its message and exits 2. */
export class ArgumentError extends Error {}

const integerFlags = {
  '--signaling-port': 'signalingPort',
  '--media-port': 'mediaPort',
  '--width': 'width',
  '--height': 'height',
  '--fps': 'fps',
  '--max-width': 'maxWidth',
  '--max-height': 'maxHeight',
  '--max-viewers': 'maxViewers',
  '--files-mb': 'filesMb',
} as const;

const textFlags = {
  '--session-id': 'sessionId',
  '--host': 'host',
  '--app-name': 'appName',
  '--app-version': 'appVersion',
  '--profile': 'profile',
  '--usd-stage-uri': 'usdStageUri',
  '--codec': 'codec',
} as const;

/** Flags without a value. */
const switchFlags = { '--test-marks': 'testMarks', '--no-audio': 'noAudio' } as const;

type IntegerKey = (typeof integerFlags)[keyof typeof integerFlags];
type TextKey = (typeof textFlags)[keyof typeof textFlags];

const limits: Record<IntegerKey, [number, number]> = {
  signalingPort: [1, 65535],
  mediaPort: [1, 65535],
  width: [16, 7680],
  height: [16, 4320],
  fps: [1, 120],
  maxWidth: [16, 7680],
  maxHeight: [16, 4320],
  maxViewers: [1, 1000],
  filesMb: [1, MAX_FILES_MB],
};

/** Rounds down to an even number, as VP8 with 4:2:0 chroma needs. */
export function even(n: number): number {
  return Math.max(2, Math.floor(n / 2) * 2);
}

/**
 * The stream size a viewer's `resize` asks for: even, within the profile's maximum; null when it is
 * below 64 pixels either way or the same as `current` (nothing to restart).
 */
export function resizedTo(
  width: number,
  height: number,
  max: { maxWidth: number; maxHeight: number },
  current: { width: number; height: number },
): { width: number; height: number } | null {
  const w = Math.min(even(width), max.maxWidth);
  const h = Math.min(even(height), max.maxHeight);
  if (w < 64 || h < 64 || (w === current.width && h === current.height)) return null;
  return { width: w, height: h };
}

function parseInteger(flag: string, text: string | undefined, key: IntegerKey): number {
  if (text === undefined || !/^\d+$/.test(text)) throw new ArgumentError(`${flag} needs a whole number.`);
  const value = Number(text);
  const [min, max] = limits[key];
  if (value < min || value > max) throw new ArgumentError(`${flag} must be between ${min} and ${max}.`);
  return value;
}

/**
 * The stage URI from STREAMGATE_ARGUMENTS (the POST /stream body's `arguments`), if it names one.
 * Malformed JSON is ignored rather than fatal: the picture just shows no stage.
 */
function stageFromEnvironment(raw: string | undefined): string | undefined {
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

/** STREAMGATE_ALLOWED_ORIGINS: comma-separated origins; unset allows any. */
function originsFromEnvironment(raw: string | undefined): string[] | null {
  if (raw === undefined || raw.trim() === '') return null;
  return raw
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
}

/**
 * The session's secret, from the file STREAMGATE_VIEWER_SECRET_FILE names (the service's pipe). A secret in the
 * environment is refused: /proc/<pid>/environ keeps it for the life of the process, whatever is deleted.
 */
function secretFromFile(env: NodeJS.ProcessEnv): Uint8Array | null {
  if (env[SECRET_ENV] !== undefined)
    throw new ArgumentError(
      `Pass the viewer secret in a file named by ${SECRET_FILE_ENV}, not in ${SECRET_ENV}.`,
    );
  try {
    return readSecretFile(env[SECRET_FILE_ENV]);
  } catch (error) {
    throw new ArgumentError(`The viewer secret cannot be read: ${(error as Error).message}`);
  }
}

/**
 * Parses argv (without node and the script) and the environment into options; throws ArgumentError.
 * The secret comes only from a file: a command line is readable by every user of the machine, and an
 * environment stays readable in /proc for the life of the process.
 */
export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv = {}): StreamerOptions {
  const ints: Partial<Record<IntegerKey, number>> = {};
  const texts: Partial<Record<TextKey, string>> = {};
  const switches = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') continue;
    if (arg in switchFlags) {
      switches.add(switchFlags[arg as keyof typeof switchFlags]);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (flag in integerFlags) {
      const key = integerFlags[flag as keyof typeof integerFlags];
      ints[key] = parseInteger(flag, value, key);
    } else if (flag in textFlags) {
      if (value === undefined) throw new ArgumentError(`${flag} needs a value.`);
      texts[textFlags[flag as keyof typeof textFlags]] = value;
    } else {
      throw new ArgumentError(`Unknown flag ${flag}.`);
    }
  }
  if (ints.signalingPort === undefined) throw new ArgumentError('--signaling-port is required.');
  if (ints.mediaPort === undefined) throw new ArgumentError('--media-port is required.');
  const codec = texts.codec ?? (env.STREAMGATE_CODEC?.trim() || 'vp8');
  if (codec !== 'vp8' && codec !== 'h264')
    throw new ArgumentError('--codec (or STREAMGATE_CODEC) must be vp8 or h264.');
  const audioSetting = env.STREAMGATE_AUDIO?.trim() || 'on';
  if (audioSetting !== 'on' && audioSetting !== 'off')
    throw new ArgumentError('STREAMGATE_AUDIO must be on or off.');
  if (env.STREAMGATE_MAX_VIEWERS !== undefined && ints.maxViewers === undefined) {
    ints.maxViewers = parseInteger('STREAMGATE_MAX_VIEWERS', env.STREAMGATE_MAX_VIEWERS, 'maxViewers');
  }
  if (env.STREAMGATE_FILES_MB !== undefined && ints.filesMb === undefined) {
    ints.filesMb = parseInteger('STREAMGATE_FILES_MB', env.STREAMGATE_FILES_MB, 'filesMb');
  }
  const maxWidth = even(ints.maxWidth ?? 1920);
  const maxHeight = even(ints.maxHeight ?? 1080);
  return {
    sessionId: texts.sessionId ?? randomUUID(),
    signalingPort: ints.signalingPort,
    mediaPort: ints.mediaPort,
    host: texts.host ?? '127.0.0.1',
    appName: texts.appName ?? 'Sample Streaming Application',
    appVersion: texts.appVersion ?? '0.0.0',
    profile: texts.profile ?? 'default',
    width: Math.min(even(ints.width ?? 1280), maxWidth),
    height: Math.min(even(ints.height ?? 720), maxHeight),
    fps: ints.fps ?? 30,
    codec,
    maxWidth,
    maxHeight,
    usdStageUri: texts.usdStageUri ?? stageFromEnvironment(env.STREAMGATE_ARGUMENTS) ?? '',
    maxViewers: ints.maxViewers ?? 8,
    filesMb: ints.filesMb ?? DEFAULT_FILES_MB,
    allowedOrigins: originsFromEnvironment(env.STREAMGATE_ALLOWED_ORIGINS),
    viewerSecret: secretFromFile(env),
    // The environment too: a service started for tests passes it on to every application it starts.
    testMarks: switches.has('testMarks') || env.STREAMGATE_TEST_MARKS === '1',
    stillPath: env.STREAMGATE_STILL_PATH?.trim() || null,
    audio: !switches.has('noAudio') && audioSetting === 'on',
  };
}
