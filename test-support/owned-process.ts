/**
 * A child process a test owns (the service, the sample application, the display host): its output kept, ready
 * once a URL answers, and stopped on every way out: by the test, when it does not get ready, and, should the
 * test process exit with it still running, by a SIGTERM from an exit hook so that it cleans up after itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { answers } from './until.ts';
import { stopChild } from '../streamer/runtime/lifecycle.ts';

export interface OwnedProcessOptions {
  /** What it is, for messages: "The service", "The application". */
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Polled until it answers 2xx. */
  readyUrl: string;
  readyWithinMs: number;
  /** Between stop()'s signal and SIGKILL. */
  graceMs: number;
  /** Only the tail of the output is kept when set: a long run must not grow it without end. */
  keepOutput?: number;
  /** An IPC channel to it, as a launcher holds (scripts/start.ts): `child.disconnect()` is the launcher gone. */
  ipc?: boolean;
}

/** A process that exited or was not ready in time: how it ended and what it said. */
export class ProcessStartError extends Error {
  constructor(
    message: string,
    readonly output: string,
    readonly exitCode: number | null,
  ) {
    super(`${message}:\n${output}`);
    this.name = 'ProcessStartError';
  }
}

export interface OwnedProcess {
  child: ChildProcess;
  /** What it wrote to stdout and stderr (the tail, with `keepOutput`). */
  output(): string;
  running(): boolean;
  /** Sends `signal` (SIGTERM), then SIGKILL after the grace; resolves once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** SIGKILL: no clean-up runs, as when the machine or the process dies. */
  kill9(): Promise<void>;
}

const owned = new Set<OwnedProcess>();
let hooked = false;

/** A test process that exits leaves none of its children running: each is asked to stop (SIGTERM). */
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const one of owned) if (one.running()) one.child.kill('SIGTERM');
  });
}

/** Starts the process and waits until `readyUrl` answers; one that exits or is not ready in time is killed. */
export async function startOwnedProcess(options: OwnedProcessOptions): Promise<OwnedProcess> {
  hookExit();
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe', ...(options.ipc ? (['ipc'] as const) : [])],
  });
  // The channel closes when this process dies; it does not keep it alive.
  child.channel?.unref();
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (options.keepOutput !== undefined) output = output.slice(-options.keepOutput);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    await stopChild(child, options.graceMs, signal);
    owned.delete(handle);
  };
  const handle: OwnedProcess = {
    child,
    output: () => output,
    running,
    stop,
    kill9: () => stop('SIGKILL'),
  };
  owned.add(handle);

  const deadline = Date.now() + options.readyWithinMs;
  for (;;) {
    if (!running()) {
      // Its last words, which explain it, may still be in its pipes (a child holding them open gets a second).
      await Promise.race([closed, pause(1_000)]);
      throw new ProcessStartError(`${options.name} exited at start-up`, output, child.exitCode);
    }
    if (await answers(options.readyUrl)) return handle;
    if (Date.now() > deadline) {
      await handle.kill9();
      const message = `${options.name} was not ready within ${options.readyWithinMs / 1000} s`;
      throw new ProcessStartError(message, output, null);
    }
    // A tenth of a second, or less if it exits meanwhile.
    await Promise.race([exited, pause(100)]);
  }
}
