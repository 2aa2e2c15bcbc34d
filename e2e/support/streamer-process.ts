/**
 * The sample application (streamer/sample/main.ts) as a child process: shared by the end-to-end tests, the
 * benchmarks and the reliability suite, which differ only in ports, arguments and patience.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const root = path.resolve(import.meta.dirname, '../..');

/** The application started as a child process. */
export interface StreamerProcess {
  url: string;
  signalingPort: number;
  mediaPort: number;
  process: ChildProcess;
  output(): string;
  /** SIGTERM (or the given signal), then SIGKILL after 5 s; resolves when it has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Where the application listens, what else it is given, and how long it may take to be ready. */
export interface LaunchOptions {
  signalingPort: number;
  mediaPort: number;
  args: string[];
  readyWithinMs: number;
  /** Draw the marks strip that tests read back; on unless a test checks the picture without it. */
  testMarks?: boolean;
  /** The display host (streamer/display/main.ts) streaming this program instead of the sample application. */
  program?: string[];
}

/** Starts streamer/sample/main.ts (or the display host) and waits until /health answers 200; kills it if it is not ready in time. */
export async function launchStreamer(options: LaunchOptions): Promise<StreamerProcess> {
  const { signalingPort, mediaPort, args, readyWithinMs, testMarks = true, program } = options;
  const child = spawn(
    process.execPath,
    [
      ...['--import', 'tsx', program ? 'streamer/display/main.ts' : 'streamer/sample/main.ts'],
      ...['--signaling-port', String(signalingPort), '--media-port', String(mediaPort)],
      ...args,
      ...(testMarks ? ['--test-marks'] : []),
      ...(program ? ['--', ...program] : []),
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  // Only the tail is kept: it is there to explain a failure, and a long run must not grow it without end.
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const url = `http://127.0.0.1:${signalingPort}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + readyWithinMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The application exited at start-up:\n${output}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop('SIGKILL');
      throw new Error(`The application was not ready within ${readyWithinMs / 1000} s:\n${output}`);
    }
    await sleep(100);
  }
  return { url, signalingPort, mediaPort, process: child, output: () => output, stop };
}
