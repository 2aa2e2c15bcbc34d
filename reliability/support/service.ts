/**
 * A real service process for the reliability suite: spawned like the e2e stack (tsx, its own data
 * directory, its own ports), with its whole output kept so that tests can read the log, and with helpers
 * to kill it hard, start it again on the same data directory, and find every process it left behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { copyStandInTo, STAND_IN_FILE } from '../../test-support/stand-in-bundle.ts';

export const root = path.resolve(import.meta.dirname, '../..');

export interface ServiceOptions {
  /** Listen port, from the suite's range 18200-18299. */
  port: number;
  /** Session ports, from the suite's range 45000-45999. */
  sessionPorts: { first: number; last: number };
  catalog: string;
  tokens?: string;
  env?: Record<string, string>;
  /** Reuse this working directory (the data directory is `state` inside it). */
  workDir?: string;
  /** Run the service through `sh -c 'ulimit ...; exec node ...'` with this prefix. */
  shellPrefix?: string;
}

export interface Service {
  url: string;
  api: string;
  workDir: string;
  dataDir: string;
  child: ChildProcess;
  /** Everything the service wrote to stdout and stderr so far. */
  output(): string;
  /** SIGKILL: no clean-up runs, as when the machine or the process dies. */
  kill9(): Promise<void>;
  /** SIGTERM and wait (SIGKILL after 15 s). */
  stop(): Promise<void>;
}

/** Every service this test file started; `stopStartedServices` stops those still running. */
const started: Service[] = [];

/**
 * Stops every service this test file started and has not stopped: one a failed test left running would hold the
 * suite's ports, and fail the next run, on this machine.
 */
export async function stopStartedServices(): Promise<void> {
  await Promise.all(started.splice(0).map((service) => service.stop()));
}

/** Starts the service and waits for /healthz; throws with its output if it does not come up. */
export async function startService(options: ServiceOptions): Promise<Service> {
  const workDir = options.workDir ?? (await mkdtemp(path.join(tmpdir(), 'streamgate-rel-')));
  const dataDir = path.join(workDir, 'state');
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(options.port),
    HOST: '127.0.0.1',
    STREAMGATE_DATA_DIR: dataDir,
    STREAMGATE_PORT_RANGE: `${options.sessionPorts.first}-${options.sessionPorts.last}`,
    STREAMGATE_CATALOG: path.join(workDir, 'catalog.yaml'),
    // A directory without index.html: the API alone, unless a test points it at a portal.
    STREAMGATE_STATIC_DIR: path.join(workDir, 'no-portal'),
    LOG_LEVEL: 'info',
    ...options.env,
  };
  await writeFile(env.STREAMGATE_CATALOG as string, options.catalog);
  // The service runs the stand-in in a sandbox, which sees only the files beside the catalog that it names.
  if (options.catalog.includes(STAND_IN_FILE)) copyStandInTo(workDir);
  if (options.tokens !== undefined) {
    env.STREAMGATE_TOKENS = path.join(workDir, 'tokens.yaml');
    await writeFile(env.STREAMGATE_TOKENS, options.tokens);
  }
  const node = [process.execPath, '--import', 'tsx', 'server/main.ts'];
  const child = options.shellPrefix
    ? spawn('sh', ['-c', `${options.shellPrefix}; exec "$@"`, 'sh', ...node], {
        cwd: root,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(node[0] as string, node.slice(1), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;

  const url = `http://127.0.0.1:${options.port}`;
  const service: Service = {
    url,
    api: `${url}/api`,
    workDir,
    dataDir,
    child,
    output: () => output,
    async kill9() {
      if (running()) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (running()) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
  started.push(service);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (!running()) throw new Error(`The service exited at start-up:\n${output}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return service;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await service.kill9();
      throw new Error(`The service did not answer /healthz within 60 s:\n${output}`);
    }
    await sleep(100);
  }
}

/** Removes a working directory made by startService. */
export async function removeWorkDir(workDir: string): Promise<void> {
  await rm(workDir, { recursive: true, force: true });
}

/** Pids of every live process whose command line contains `marker` (a session id, a directory). */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const state = /\)\s+(\S)/.exec(readFileSync(`/proc/${name}/stat`, 'utf8'))?.[1];
      // A zombie has exited; only its parent's wait is missing.
      if (state !== 'Z' && cmdline.split('\0').join(' ').includes(marker)) found.push(Number(name));
    } catch {
      // gone while we looked
    }
  }
  return found;
}

/** Whether a process is alive (and not a zombie). */
export function alive(pid: number): boolean {
  try {
    const state = /\)\s+(\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
    return state !== undefined && state !== 'Z';
  } catch {
    return false;
  }
}

/** Polls until `condition` holds; a guard against hanging, never a timing assertion. */
export async function until<T>(
  what: string,
  condition: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}
