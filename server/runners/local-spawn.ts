/**
 * Spawns one session's application as a child process on this machine, for the local runner (local.ts): its
 * command line is built in local-command.ts, its output goes to its log (local-logs.ts).
 *
 * The child is detached (its own process group): a Ctrl-C in the terminal reaches only the service,
 * which then stops its children itself, and the children outlive a kill -9 of the service so that the
 * next start can adopt them. For the same reason their output goes to a file, not a pipe: a pipe whose
 * reader died breaks the writer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import type { Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCommand, sessionEnvironment, type LaunchInput } from './local-command.ts';
import { logPath } from './local-logs.ts';
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
