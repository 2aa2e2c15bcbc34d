/**
 * Starts one session's application as a child process on this machine.
 *
 * The child is detached (its own process group): a Ctrl-C in the terminal reaches only the service,
 * which then stops its children itself, and the children outlive a kill -9 of the service so that the
 * next start can adopt them. For the same reason their output goes to a file, not a pipe: a pipe whose
 * reader died breaks the writer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SessionRequest } from '../sessions/types.ts';

/** The repository root: the sample application's path and default working directory are relative to it. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** One session's launch: which session, what to run, on which ports and address. */
export interface LaunchInput {
  sessionId: string;
  request: SessionRequest;
  ports: { signaling: number; media: number };
  /** Address the application binds and advertises. */
  host: string;
}

/** A resolved command line: executable, arguments and the environment added to the service's. */
export interface Command {
  file: string;
  args: string[];
  env: Record<string, string>;
}

/** argv and environment for a session: the catalog's LaunchSpec, or the sample streaming application. */
export function buildCommand({ sessionId, request, ports, host }: LaunchInput): Command {
  const env: Record<string, string> = {
    STREAMGATE_SESSION_ID: sessionId,
    STREAMGATE_SIGNALING_PORT: String(ports.signaling),
    STREAMGATE_MEDIA_PORT: String(ports.media),
    STREAMGATE_HOST: host,
    STREAMGATE_ARGUMENTS: JSON.stringify(request.arguments),
  };
  if (request.launch) {
    const values: Record<string, string> = {
      signaling_port: String(ports.signaling),
      media_port: String(ports.media),
      host,
      session_id: sessionId,
    };
    const [file, ...args] = request.launch.command.map((part) =>
      part.replace(/\{(signaling_port|media_port|host|session_id)\}/g, (_, key: string) => values[key] ?? ''),
    );
    if (file === undefined) throw new Error('A launch command needs at least one element.');
    return { file, args, env: { ...request.launch.env, ...env } };
  }
  const { settings } = request.profile;
  const args = [
    '--import',
    'tsx',
    'streamer/main.ts',
    '--session-id',
    sessionId,
    '--signaling-port',
    String(ports.signaling),
    '--media-port',
    String(ports.media),
    '--host',
    host,
    '--app-name',
    request.app.name,
    '--app-version',
    request.version,
    '--profile',
    request.profile.id,
    '--width',
    String(settings.width),
    '--height',
    String(settings.height),
    '--fps',
    String(settings.fps),
    '--max-width',
    String(settings.maxWidth),
    '--max-height',
    String(settings.maxHeight),
  ];
  const stage = request.arguments.usd_stage_uri;
  if (typeof stage === 'string' && stage !== '') args.push('--usd-stage-uri', stage);
  return { file: process.execPath, args, env };
}

/** Where a launched application runs and writes its output. */
export interface LaunchOptions {
  /** Directory of the per-session log files. */
  logDir: string;
  cwd?: string;
}

/** Where a session's application writes its output. */
export function logPath(logDir: string, sessionId: string): string {
  return path.join(logDir, `${sessionId}.log`);
}

/**
 * Spawns the application. Resolves with the child once it has a pid; rejects when it cannot be
 * spawned at all (missing executable, bad working directory).
 */
export async function launchApplication(input: LaunchInput, options: LaunchOptions): Promise<ChildProcess> {
  const command = buildCommand(input);
  mkdirSync(options.logDir, { recursive: true });
  const log = openSync(logPath(options.logDir, input.sessionId), 'a');
  let child: ChildProcess;
  try {
    child = spawn(command.file, command.args, {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, ...command.env },
      detached: true,
      stdio: ['ignore', log, log],
    });
  } finally {
    // The child holds its own copy of the descriptor.
    closeSync(log);
  }
  // The service must not wait for its applications to exit before it can exit itself.
  child.unref();
  // Signals go to the process group, not through this object, so its later errors carry nothing to act
  // on; but an 'error' event without a listener would bring the whole service down.
  child.on('error', () => undefined);
  if (child.pid !== undefined) return child;
  return new Promise((resolve, reject) => {
    child.once('spawn', () => resolve(child));
    child.once('error', reject);
  });
}

/** Removes log files last written more than `olderThanMs` ago. */
export async function pruneLogs(logDir: string, olderThanMs: number): Promise<void> {
  const names = await readdir(logDir).catch(() => [] as string[]);
  const cutoff = Date.now() - olderThanMs;
  for (const name of names) {
    if (!name.endsWith('.log')) continue;
    const file = path.join(logDir, name);
    const info = await stat(file).catch(() => undefined);
    if (info && info.mtimeMs < cutoff) await rm(file, { force: true });
  }
}
