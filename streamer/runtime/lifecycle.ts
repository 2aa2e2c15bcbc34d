/**
 * How an application process (the sample application, the display host) ends: on SIGTERM, SIGINT or
 * SIGHUP (code 0), on a crash (code 1), or when its entry point says so. What it started is closed first,
 * within a grace period, and a reason, if any, is the last line of its log: the service quotes it.
 */
import type { ChildProcess } from 'node:child_process';
import type { StreamerOptions } from './stream-options.ts';

/**
 * Ends `child`: `signal` (SIGTERM), then SIGKILL after `graceMs` if it is still there; resolves once it has
 * exited (at once for one already gone). The one way every part of the project stops a process of its own.
 */
export async function stopChild(
  child: ChildProcess,
  graceMs: number,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(force);
}

export type Stop = (code: number, reason?: string) => void;

export function installStop(
  options: { log: (line: string) => void; graceMs: number },
  close: () => Promise<void>,
): Stop {
  let stopping = false;
  const stop: Stop = (code, reason) => {
    if (stopping) return;
    stopping = true;
    const exit = () => {
      if (reason) options.log(reason);
      process.exit(code);
    };
    setTimeout(exit, options.graceMs).unref();
    void close().finally(exit);
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => stop(0));
  process.on('uncaughtException', (err) =>
    stop(1, `crashed: ${err instanceof Error ? err.message : String(err)}`),
  );
  return stop;
}

/** The first line an application logs once it serves: where viewers connect, and what it streams. */
export function servingLine(options: StreamerOptions, signalingPort: number): string {
  return (
    `session ${options.sessionId}: signaling http://${options.host}:${signalingPort}/whep, ` +
    `media udp ${options.host}:${options.mediaPort}, ${options.width}x${options.height} at ${options.fps} fps`
  );
}
