/**
 * The real service as a child process for the end-to-end tests and benchmarks: its files and environment,
 * starting it until it answers /healthz, and stopping it. stack.ts and restartable-stack.ts build on these.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface StackOptions {
  /** Extra environment for the service (STREAMGATE_CAPACITY, STREAMGATE_CATALOG, ...). */
  env?: Record<string, string>;
  /** Catalog YAML text written to a temporary file and used instead of the repository's catalog.yaml. */
  catalog?: string;
  /** Files of the repository linked beside that catalog, for its `files` (`models`, say). */
  beside?: string[];
  /** Files written beside that catalog before the service starts (its icons, say): relative path to text. */
  written?: Record<string, string>;
  /** Tokens file YAML text (CONTRACT section 10). */
  tokens?: string;
}

/** A temporary data directory with the catalog and tokens files, and the service's environment. */
export interface ServiceFiles {
  dataDir: string;
  catalogFile: string;
  env: Record<string, string>;
}

const root = path.resolve(import.meta.dirname, '../..');

/** Writes the service's files and builds its environment: listen on `port`, hand out `portRange`. */
export async function prepareService(
  options: StackOptions,
  port: number,
  portRange: string,
): Promise<ServiceFiles> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'streamgate-e2e-'));
  const catalogFile = path.join(dataDir, 'catalog.yaml');
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    HOST: '127.0.0.1',
    STREAMGATE_DATA_DIR: path.join(dataDir, 'state'),
    STREAMGATE_PORT_RANGE: portRange,
    LOG_LEVEL: 'warn',
    // The tests and benchmarks read the sample applications' marks back from the picture.
    STREAMGATE_TEST_MARKS: '1',
    ...options.env,
  };
  if (options.catalog !== undefined) {
    env.STREAMGATE_CATALOG = catalogFile;
    await writeFile(catalogFile, options.catalog);
    for (const name of options.beside ?? []) await symlink(path.join(root, name), path.join(dataDir, name));
    for (const [name, text] of Object.entries(options.written ?? {})) {
      await mkdir(path.dirname(path.join(dataDir, name)), { recursive: true });
      await writeFile(path.join(dataDir, name), text);
    }
  }
  if (options.tokens !== undefined) {
    env.STREAMGATE_TOKENS = path.join(dataDir, 'tokens.yaml');
    await writeFile(env.STREAMGATE_TOKENS, options.tokens);
  }
  return { dataDir, catalogFile, env };
}

/** Sends `signal`, then SIGKILL after `graceMs`, and waits for the process to exit. */
export async function stopProcess(
  child: ChildProcess,
  signal: NodeJS.Signals,
  graceMs: number,
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts the service and waits until `baseURL/healthz` answers; its output goes to `collect`. A service that
 * exits or does not answer within 30 s is stopped and the error carries `output()`.
 */
export async function launchService(
  env: Record<string, string>,
  baseURL: string,
  collect: (chunk: Buffer) => void,
  output: () => string,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The service exited at start-up:\n${output()}`);
    try {
      const res = await fetch(`${baseURL}/healthz`);
      if (res.ok) return child;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stopProcess(child, 'SIGTERM', 10_000);
      throw new Error(`The service did not answer /healthz within 30 s:\n${output()}`);
    }
    await sleep(100);
  }
}
