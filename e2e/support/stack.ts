/**
 * Starts the real service (which serves the built portal and starts real applications) for one spec file,
 * on a free port with its own data directory, and stops it and everything it started afterwards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './ports';

export interface StackOptions {
  /** Extra environment for the service (STREAMGATE_CAPACITY, STREAMGATE_CATALOG, ...). */
  env?: Record<string, string>;
  /** Catalog YAML text written to a temporary file and used instead of the repository's catalog.yaml. */
  catalog?: string;
  /** Tokens file YAML text (CONTRACT section 10). */
  tokens?: string;
}

export interface Stack {
  baseURL: string;
  apiURL: string;
  dataDir: string;
  process: ChildProcess;
  /** Output of the service so far, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

const root = path.resolve(import.meta.dirname, '../..');

let nextRange = 0;
/** A port range of its own for each stack, so that stacks of one run never share application ports. */
function portRange(): string {
  const first = 47000 + ((process.pid * 7 + nextRange++ * 40) % 900);
  return `${first}-${first + 39}`;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'streamgate-e2e-'));
  const port = await freePort();
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    HOST: '127.0.0.1',
    STREAMGATE_DATA_DIR: path.join(dataDir, 'state'),
    STREAMGATE_PORT_RANGE: portRange(),
    LOG_LEVEL: 'warn',
    ...options.env,
  };
  if (options.catalog !== undefined) {
    env.STREAMGATE_CATALOG = path.join(dataDir, 'catalog.yaml');
    await writeFile(env.STREAMGATE_CATALOG, options.catalog);
  }
  if (options.tokens !== undefined) {
    env.STREAMGATE_TOKENS = path.join(dataDir, 'tokens.yaml');
    await writeFile(env.STREAMGATE_TOKENS, options.tokens);
  }
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  const baseURL = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The service exited at start-up:\n${output}`);
    try {
      const res = await fetch(`${baseURL}/healthz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`The service did not answer /healthz within 30 s:\n${output}`);
    }
    await sleep(100);
  }
  return { baseURL, apiURL: `${baseURL}/api`, dataDir, process: child, output: () => output, stop };
}
