/**
 * Starts one session's application as a child process on this machine; its command line is built in
 * local-command.ts.
 *
 * The child is detached (its own process group): a Ctrl-C in the terminal reaches only the service,
 * which then stops its children itself, and the children outlive a kill -9 of the service so that the
 * next start can adopt them. For the same reason their output goes to a file, not a pipe: a pipe whose
 * reader died breaks the writer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import type { Socket } from 'node:net';
import { chmod, mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCommand, sessionEnvironment, type LaunchInput } from './local-command.ts';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../private-files.ts';
import { READY_FD_ENV } from '../../protocol/ready-line.ts';
import { feedPipes, pipesFor } from '../../sandbox/bwrap.ts';

/** The repository root: the sample application's path and default working directory are relative to it. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The descriptor of the ready line's pipe (protocol/ready-line.ts) in the application. */
export const READY_FD = 3;

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
 * The last line an application wrote to its log (where the display host says why its program ended),
 * without its `[tag]` prefix and cut to a sentence's length; empty when there is none.
 */
export async function lastLogLine(logDir: string, sessionId: string): Promise<string> {
  let handle;
  try {
    handle = await open(logPath(logDir, sessionId), 'r');
    const { size } = await handle.stat();
    const length = Math.min(size, 4096);
    const { buffer } = await handle.read(Buffer.alloc(length), 0, length, size - length);
    const line = buffer.toString('utf8').trim().split('\n').pop() ?? '';
    const text = line.replace(/^\[[a-z-]+\]\s*/, '').trim();
    return text.length > 400 ? `${text.slice(0, 400)}…` : text;
  } catch {
    return '';
  } finally {
    await handle?.close();
  }
}

/**
 * Resolves when `child` says it is ready on its ready line's pipe; never, for a program that does not
 * (or exits first: its exit is watched elsewhere).
 */
export function announcedReady(child: ChildProcess): Promise<void> {
  const pipe = child.stdio[READY_FD] as Socket | undefined | null;
  return new Promise((resolve) => {
    if (!pipe) return;
    pipe.once('data', () => {
      resolve();
      pipe.destroy();
    });
    pipe.once('error', () => pipe.destroy());
  });
}

/**
 * Spawns the application. Resolves with the child once it has a pid; rejects when it cannot be
 * spawned at all (missing executable, bad working directory).
 */
export async function launchApplication(input: LaunchInput, options: LaunchOptions): Promise<ChildProcess> {
  const command = buildCommand(input);
  mkdirSync(options.logDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const log = openSync(logPath(options.logDir, input.sessionId), 'a', PRIVATE_FILE_MODE);
  const env: NodeJS.ProcessEnv = sessionEnvironment(command.env);
  if (command.announcesReady) env[READY_FD_ENV] = String(READY_FD);
  const extra = command.extra ?? [];
  const fds = [...(command.announcesReady ? ['pipe' as const] : []), ...pipesFor(extra)];
  let child: ChildProcess;
  try {
    child = spawn(command.file, command.args, {
      cwd: options.cwd ?? repoRoot,
      env,
      detached: true,
      // The ready line's pipe: written once, and the application survives its reader (it ignores EPIPE).
      stdio: ['ignore', log, log, ...fds],
    });
  } finally {
    // The child holds its own copy of the descriptor.
    closeSync(log);
  }
  feedPipes(child, extra, command.announcesReady ? READY_FD + 1 : READY_FD);
  // The service must not wait for its applications to exit before it can exit itself.
  child.unref();
  // Signals go to the process group, not through this object, so its later errors carry nothing to act
  // on; but an 'error' event without a listener would bring the whole service down.
  child.on('error', () => undefined);
  // Nor for the ready line's pipe.
  (child.stdio[READY_FD] as Socket | undefined)?.unref();
  if (child.pid !== undefined) return child;
  return new Promise((resolve, reject) => {
    child.once('spawn', () => resolve(child));
    child.once('error', reject);
  });
}

/**
 * Makes the logs directory readable by the service's user only, and removes log files last written
 * more than `olderThanMs` ago. Run at start.
 */
export async function tidyLogs(logDir: string, olderThanMs: number): Promise<void> {
  await mkdir(logDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  // An existing directory keeps its mode through mkdir, and older versions left it readable by all.
  await chmod(logDir, PRIVATE_DIR_MODE);
  const names = await readdir(logDir).catch(() => [] as string[]);
  const cutoff = Date.now() - olderThanMs;
  for (const name of names) {
    if (!name.endsWith('.log')) continue;
    const file = path.join(logDir, name);
    const info = await stat(file).catch(() => undefined);
    if (info && info.mtimeMs < cutoff) await rm(file, { force: true });
  }
}
