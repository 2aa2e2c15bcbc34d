/**
 * A service that a spec can crash (SIGKILL) and start again on the same port and data directory, as a host
 * does after a crash: the applications it started outlive it and the new service adopts them.
 * stack.ts starts a service that lives for the whole spec; this one keeps what a restart needs.
 */
import type { ChildProcess } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { launchService, prepareService, stopProcess, type StackOptions } from './service-process';

/** A service that can be killed and started again where it was. */
export interface RestartableStack {
  baseURL: string;
  apiURL: string;
  /** Output of every run of the service so far, for failure messages. */
  output(): string;
  /** Kills the service process alone (not its applications) and waits for it to exit. */
  crash(): Promise<void>;
  /** Starts the service again on the same port and data directory and waits until it answers. */
  restart(): Promise<void>;
  /** Replaces the catalog file; the service reads it when it (re)starts. */
  writeCatalog(text: string): Promise<void>;
  /** Stops the service cleanly (which ends every session) and removes its files. */
  stop(): Promise<void>;
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A free port of `first`..`last`, starting at a point that differs between runs of one machine. */
async function portIn(first: number, last: number): Promise<number> {
  const span = last - first + 1;
  const start = process.pid % span;
  for (let i = 0; i < span; i += 1) {
    const port = first + ((start + i) % span);
    if (await isFree(port)) return port;
  }
  throw new Error(`No free port in ${first}-${last}`);
}

/** Starts a service that survives being killed: same port, same data directory, applications adopted. */
export async function startRestartableStack(options: StackOptions = {}): Promise<RestartableStack> {
  const port = await portIn(18300, 18399);
  const sessions = 44000 + (process.pid % 24) * 40;
  const { dataDir, catalogFile, env } = await prepareService(options, port, `${sessions}-${sessions + 39}`);
  const baseURL = `http://127.0.0.1:${port}`;
  let output = '';
  let child: ChildProcess | undefined;

  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  const signal = async (name: NodeJS.Signals, graceMs: number) => {
    if (child) await stopProcess(child, name, graceMs);
  };
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  const launch = async () => {
    child = await launchService(env, baseURL, collect, () => output);
  };

  await launch();
  return {
    baseURL,
    apiURL: `${baseURL}/api`,
    output: () => output,
    crash: () => signal('SIGKILL', 0),
    restart: launch,
    writeCatalog: async (text) => {
      if (env.STREAMGATE_CATALOG !== catalogFile) throw new Error('Start the stack with a catalog first.');
      await writeFile(catalogFile, text);
    },
    stop: async () => {
      // Left crashed (a spec failed between crash and restart), its applications still run: a service started
      // again adopts them, and its clean stop ends every session (CONTRACT 11).
      try {
        if (!running()) await launch();
      } finally {
        await signal('SIGTERM', 10_000);
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}
