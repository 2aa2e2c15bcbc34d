/** The real sample application on fixed ports, for the hostile-input tests of its WHEP endpoint. */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { root } from './service.ts';

export interface StreamerProcess {
  url: string;
  signalingPort: number;
  mediaPort: number;
  pid: number;
  output(): string;
  /** SIGTERM, then SIGKILL after 5 s; resolves once it has exited. */
  stop(): Promise<void>;
}

/** Starts streamer/main.ts at 320x180 and waits until /health answers 200. */
export async function startStreamer(signalingPort: number, mediaPort: number): Promise<StreamerProcess> {
  const child = spawn(
    process.execPath,
    [
      ...['--import', 'tsx', 'streamer/main.ts'],
      ...['--signaling-port', String(signalingPort), '--media-port', String(mediaPort)],
      ...['--width', '320', '--height', '180', '--fps', '15'],
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${signalingPort}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The application exited at start-up:\n${output}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`The application was not ready within 60 s:\n${output}`);
    }
    await sleep(100);
  }
  return { url, signalingPort, mediaPort, pid: child.pid ?? 0, output: () => output, stop };
}
