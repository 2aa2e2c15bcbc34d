/**
 * A service that a spec can crash (SIGKILL) and start again on the same port and data directory, as a host
 * does after a crash: the applications it started outlive it and the new service adopts them.
 * stack.ts starts a service that lives for the whole spec; this one keeps what a restart needs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StackOptions } from './stack';

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

const root = path.resolve(import.meta.dirname, '../..');

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
  const dataDir = await mkdtemp(path.join(tmpdir(), 'streamgate-e2e-'));
  const port = await portIn(18300, 18399);
  const sessions = 44000 + (process.pid % 24) * 40;
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    HOST: '127.0.0.1',
    STREAMGATE_DATA_DIR: path.join(dataDir, 'state'),
    STREAMGATE_PORT_RANGE: `${sessions}-${sessions + 39}`,
    LOG_LEVEL: 'warn',
    ...options.env,
  };
  const catalogFile = path.join(dataDir, 'catalog.yaml');
  if (options.catalog !== undefined) {
    env.STREAMGATE_CATALOG = catalogFile;
    await writeFile(catalogFile, options.catalog);
  }
  if (options.tokens !== undefined) {
    env.STREAMGATE_TOKENS = path.join(dataDir, 'tokens.yaml');
    await writeFile(env.STREAMGATE_TOKENS, options.tokens);
  }
  const baseURL = `http://127.0.0.1:${port}`;
  let output = '';
  let child: ChildProcess | undefined;

  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  const signal = async (name: NodeJS.Signals, graceMs: number) => {
    const current = child;
    if (!current || !running()) return;
    const exited = new Promise((resolve) => current.once('exit', resolve));
    current.kill(name);
    const timer = setTimeout(() => current.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };

  const launch = async () => {
    const started = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000);
    };
    started.stdout?.on('data', collect);
    started.stderr?.on('data', collect);
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (started.exitCode !== null) throw new Error(`The service exited at start-up:\n${output}`);
      try {
        const res = await fetch(`${baseURL}/healthz`);
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        await signal('SIGTERM', 10_000);
        throw new Error(`The service did not answer /healthz within 30 s:\n${output}`);
      }
      await sleep(100);
    }
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
