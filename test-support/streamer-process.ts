/**
 * The sample application (streamer/sample/main.ts) or the display host as a child process, owned through the
 * harness (owned-process.ts): shared by the end-to-end tests, the benchmarks and the reliability
 * suite, which differ only in ports, arguments and patience.
 */
import type { ChildProcess } from 'node:child_process';
import { startOwnedProcess } from './owned-process.ts';
import { freePort, freeUdpPort } from './ports.ts';
import { repoRoot } from './service.ts';

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
  /** Its ports; free ones the system chooses where not given. */
  signalingPort?: number;
  mediaPort?: number;
  args: string[];
  readyWithinMs: number;
  /** Draw the marks strip that tests read back; on unless a test checks the picture without it. */
  testMarks?: boolean;
  /** The display host (streamer/display/main.ts) streaming this program instead of the sample application. */
  program?: string[];
  /** Added to the test's environment (a viewer secret, for one). */
  env?: NodeJS.ProcessEnv;
}

/** Starts streamer/sample/main.ts (or the display host) and waits until /health answers 200; kills it if it is not ready in time. */
export async function launchStreamer(options: LaunchOptions): Promise<StreamerProcess> {
  const { args, readyWithinMs, testMarks = true, program } = options;
  const signalingPort = options.signalingPort ?? (await freePort());
  const mediaPort = options.mediaPort ?? (await freeUdpPort());
  const url = `http://127.0.0.1:${signalingPort}`;
  const owned = await startOwnedProcess({
    name: 'The application',
    command: process.execPath,
    args: [
      ...['--import', 'tsx', program ? 'streamer/display/main.ts' : 'streamer/sample/main.ts'],
      ...['--signaling-port', String(signalingPort), '--media-port', String(mediaPort)],
      ...args,
      ...(testMarks ? ['--test-marks'] : []),
      ...(program ? ['--', ...program] : []),
    ],
    cwd: repoRoot,
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
    readyUrl: `${url}/health`,
    readyWithinMs,
    graceMs: 5_000,
    keepOutput: 20_000,
  });
  return { url, signalingPort, mediaPort, process: owned.child, output: owned.output, stop: owned.stop };
}
