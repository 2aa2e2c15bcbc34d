/**
 * The command line of one session's application on this machine (local-spawn.ts spawns it): the catalog's
 * LaunchSpec (a display program under the display host, or a program that streams itself, sandboxed when the
 * service has a sandbox) or the sample streaming application, with the session's ports, arguments and secret,
 * joined to the session's control group.
 */
import { appEntry } from './app-bundles.ts';
import type { CommandSpec } from '../catalog/model.ts';
import { FILE_PLACEHOLDER } from '../catalog/display-opens.ts';
import type { SessionRequest } from './runner.ts';
import { encodeSecret, SECRET_ENV } from '../../protocol/viewer-ticket.ts';
import { launchEnvironment, type DisplayLaunch, type LaunchItems } from '../../protocol/launch.ts';
import { sandboxLaunch, sessionUid } from '../../sandbox/bwrap.ts';
import { joinCommand, type SessionCgroup } from '../../sandbox/cgroups.ts';

/** One session's launch: which session, what to run, on which ports and address. */
export interface LaunchInput {
  sessionId: string;
  request: SessionRequest;
  ports: { signaling: number; media: number };
  /** Address the application binds and advertises. */
  host: string;
  /** Added to the application's environment: allowed origins, viewer limit, codec. */
  environment?: Record<string, string>;
  /** The session's viewer secret: on a pipe for the sample application and the display host, never their environment. */
  secret?: Uint8Array;
  /**
   * The session's sandbox (CONTRACT section 17): its control groups and the seccomp filter. Absent only where the
   * service runs without one (tests of scheduling): then applications run as the service's user.
   */
  sandbox?: { group: SessionCgroup; seccomp: { bytes: Buffer; file: string } };
}

/**
 * A resolved command line: executable, arguments and its environment, which is `env` and the few variables of
 * the service's that SESSION_ENV_ALLOWED names, never the rest (a site's secrets, the data directory's path).
 */
export interface Command {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** The program says on READY_FD when it is ready (the sample application and the display host do). */
  announcesReady?: boolean;
  /** Bytes written on pipes from descriptor 3 up (after the ready line's, when there is one). */
  extra?: Buffer[];
}

/** The descriptor of the pipe the sample application and the display host read their secret from. */
export const SECRET_FD = 4;

/**
 * The variables of the service's environment that a session's processes get (an allow-list: the rest, which may
 * hold a site's secrets, never reaches them): where programs are, the locale and time zone, the temporary folder
 * (the display host's X folders are swept there at the service's start), the switches a test or a bench sets
 * on the service for every application (test marks, another ffmpeg), and a site's setting for every display
 * session (how long an unwatched one keeps its encoder). NODE_EXTRA_CA_CERTS is not among them: Node
 * reads the file it names at every start (about 45 ms on a 2-core machine), and no session opens a TLS connection.
 */
export const SESSION_ENV_ALLOWED: readonly string[] = [
  'PATH',
  'HOME',
  'LANG',
  'LC_ALL',
  'TZ',
  'TMPDIR',
  'STREAMGATE_TEST_MARKS',
  'STREAMGATE_FFMPEG',
  'STREAMGATE_ENCODER_REST_S',
];

/** The environment of a session's process: `env` over the allowed variables of `service`'s. */
export function sessionEnvironment(
  env: Record<string, string>,
  service: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const allowed = Object.fromEntries(
    SESSION_ENV_ALLOWED.flatMap((name) => (service[name] === undefined ? [] : [[name, service[name]]])),
  ) as Record<string, string>;
  return { ...allowed, ...env };
}

/** argv and environment for a session: the catalog's LaunchSpec, or the sample streaming application. */
export function buildCommand(input: LaunchInput): Command {
  return inGroup(input, commandOf(input));
}

/** The application itself, before its control group: what it runs, and how it gets its secret. */
function commandOf(input: LaunchInput): Command {
  const { sessionId, request, ports, host, environment, secret, sandbox } = input;
  // What every application is told of its session, those that stream themselves too.
  const session: LaunchItems = {
    sessionId,
    signalingPort: ports.signaling,
    mediaPort: ports.media,
    host,
    arguments: request.arguments,
  };
  const env: Record<string, string> = { ...environment, ...launchEnvironment(session) };
  const values: Record<string, string> = {
    signaling_port: String(ports.signaling),
    media_port: String(ports.media),
    host,
    session_id: sessionId,
  };
  const fill = (command: string[]) =>
    command.map((part) =>
      part
        .replace(/\{(signaling_port|media_port|host|session_id)\}/g, (_, key: string) => values[key] ?? '')
        .replace(/\{arg:([A-Za-z0-9_]+)=([^}]*)\}/g, (_, name: string, fallback: string) =>
          argumentWord(request.arguments[name], fallback),
        ),
    );
  const { settings } = request.profile;
  if (request.launch && !('display' in request.launch)) {
    const command = fill(request.launch.command);
    if (command[0] === undefined) throw new Error('A launch command needs at least one element.');
    // An application that streams itself keeps CONTRACT section 14's environment variable for its secret.
    const own = { ...request.launch.env, ...env, ...(secret ? { [SECRET_ENV]: encodeSecret(secret) } : {}) };
    if (!sandbox) {
      const [file, ...args] = command as [string, ...string[]];
      return { file, args, env: own };
    }
    // Sandboxed with the host's network: it must listen on its ports.
    const launch = sandboxLaunch({
      command,
      env: own,
      uid: sessionUid(ports.signaling),
      seccomp: sandbox.seccomp.bytes,
      cgroup: sandbox.group.dirs('program'),
      files: request.launch.files,
      network: true,
      gpu: settings.gpus > 0,
      keepParent: true,
    });
    // bwrap, setpriv and the shell need nothing of the service's environment; the program gets `own` only.
    return { file: launch.file, args: launch.args, env: {}, extra: launch.extra };
  }
  // Our own applications: the display host or the sample application, told the rest of their launch, and their
  // secret on a pipe, never in their environment.
  const display = request.launch?.display;
  const launch = launchEnvironment({
    appName: request.app.name,
    appVersion: request.version,
    profile: request.profile.id,
    width: settings.width,
    height: settings.height,
    fps: settings.fps,
    maxWidth: settings.maxWidth,
    maxHeight: settings.maxHeight,
    ...(secret ? { secretFile: `/dev/fd/${SECRET_FD}` } : {}),
    ...(display ? { display: displayLaunch(display, input, fill) } : {}),
  });
  return {
    file: process.execPath,
    args: appEntry(display ? 'display' : 'streamer'),
    env: { ...env, ...launch },
    announcesReady: true,
    extra: secret ? [Buffer.from(encodeSecret(secret))] : [],
  };
}

/**
 * The display host's program, its own environment (which reaches the program only, not the host), its sandbox and
 * what it opens of a person's files (catalog `opens`, `open_command`: the command with `{file}` where the file goes,
 * the version's command with it appended when the catalog gives none), its templates filled in.
 */
function displayLaunch(
  display: CommandSpec,
  { request, sandbox }: LaunchInput,
  fill: (command: string[]) => string[],
): DisplayLaunch {
  const { settings } = request.profile;
  return {
    command: fill(display.command),
    env: display.env ?? {},
    opengl: display.opengl !== false,
    opening: display.opens
      ? {
          extensions: new Set(display.opens),
          command: fill(display.openCommand ?? [...display.command, FILE_PLACEHOLDER]),
        }
      : null,
    sandbox: {
      network: display.network ?? false,
      gpu: settings.gpus > 0,
      ...(display.files ? { files: display.files } : {}),
      limits: settings.limits,
      ...(sandbox ? { cgroup: sandbox.group.dirs('program'), seccompFile: sandbox.seccomp.file } : {}),
    },
  };
}

/**
 * The sample application and the display host join their session's `app` group before they run, so that the
 * session's end kills all they started (CONTRACT section 17); a sandboxed command joined its `program` group.
 */
function inGroup(input: LaunchInput, command: Command): Command {
  if (!input.sandbox || !command.announcesReady) return command;
  const [file, args] = joinCommand(input.sandbox.group.dirs('app'), [command.file, ...command.args]);
  return { ...command, file, args };
}

/**
 * A session argument put into a command line: only a plain word (letters, digits, `.`, `_`, `-`, not
 * starting with `-` or `.`), so that it can name a file beside others but never become a flag or a path.
 */
function argumentWord(value: unknown, fallback: string): string {
  return typeof value === 'string' && /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/.test(value) ? value : fallback;
}
