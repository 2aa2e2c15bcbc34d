/**
 * The one service harness: the real service (server/main.ts) as a child process on its own ports, with a working
 * directory holding its data directory (`state`), its catalog and tokens; ready once it answers /healthz; stopped,
 * killed with SIGKILL and started again where it was. The end-to-end specs (e2e/support/stack.ts,
 * restartable-stack.ts), the reliability suite (reliability/support/service.ts) and the service's process tests
 * all start it through here.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startOwnedProcess, type OwnedProcess } from './owned-process.ts';

export { ProcessStartError } from './owned-process.ts';
import { freePort, isFree, sessionPortRange, testPorts } from './ports.ts';
import { copyStandInTo, STAND_IN_FILE } from './stand-in-bundle.ts';

export const repoRoot = path.resolve(import.meta.dirname, '..');

/** A catalog's text and the repository's files linked beside it (ServiceOptions `catalog` and `beside`). */
export interface CatalogFiles {
  catalog: string;
  beside: string[];
}

/**
 * The tests' catalog, test-support/catalog.yaml, which a service serves when its test names no catalog: its sample
 * entries carry the cases the tests rely on (semver edge cases, profiles for some versions only, a warm profile).
 * It names the repository's icons and models, linked beside it.
 */
export function testCatalog(): CatalogFiles {
  return {
    catalog: readFileSync(path.join(repoRoot, 'test-support', 'catalog.yaml'), 'utf8'),
    beside: ['icons', 'models'],
  };
}

/**
 * The repository's own catalog.yaml, what `npm start` serves (real programs and the Kit App Stand-in), with the
 * folders it names linked beside it: its icons and its programs' `files`.
 */
export function repositoryCatalog(): CatalogFiles {
  return {
    catalog: readFileSync(path.join(repoRoot, 'catalog.yaml'), 'utf8'),
    beside: ['icons', 'models', 'demo', 'pictures'],
  };
}

export interface ServiceOptions {
  /** Listen port; default a free one the system chooses. */
  port?: number;
  /** Listen address (HOST), also the host of `url` and of the readiness check; default 127.0.0.1. */
  host?: string;
  /** Ports handed to sessions; default forty of 27000-27999 of this service's own. */
  sessionPorts?: { first: number; last: number };
  /**
   * Catalog YAML, written to `catalog.yaml` in the working directory; default the tests' catalog
   * (testCatalog(), with its `beside`). A catalog that names the stand-in application finds it beside itself.
   */
  catalog?: string;
  /** Files of the repository linked beside that catalog, for its `files` (`models`, say). */
  beside?: string[];
  /** Files written beside that catalog before the service starts (its icons, say): relative path to text. */
  written?: Record<string, string>;
  /** Tokens file YAML (CONTRACT section 10); default none, every caller anonymous. */
  tokens?: string;
  /** Serve the built portal (dist/); false: a directory without index.html, the API alone. Default true. */
  portal?: boolean;
  /** LOG_LEVEL; default warn. */
  logLevel?: string;
  /** More environment (STREAMGATE_CAPACITY, ...); it wins over what the harness sets. */
  env?: Record<string, string>;
  /** Use this working directory (made by an earlier service) instead of a new one; close() then leaves it. */
  workDir?: string;
  /** Run the service through `sh -c '<shellPrefix>; exec node ...'` (`ulimit -f 1`, say). */
  shellPrefix?: string;
  /** How long it may take to answer /healthz; default 60 s. */
  readyWithinMs?: number;
  /** Keep only this many last characters of its output (a bench's long run); default all of it. */
  keepOutput?: number;
}

export interface Service {
  /** `http://<host>:<port>` (127.0.0.1 unless `host` was given), and the API under it. */
  url: string;
  api: string;
  port: number;
  workDir: string;
  /** STREAMGATE_DATA_DIR: `state` in the working directory. */
  dataDir: string;
  /** The process of the current run. */
  readonly child: ChildProcess;
  /** Everything the service wrote to stdout and stderr, every run so far. */
  output(): string;
  running(): boolean;
  /** SIGKILL: no clean-up runs; the applications it started outlive it, as after a crash. */
  kill9(): Promise<void>;
  /** SIGTERM (the service ends its sessions) and wait; SIGKILL after 15 s. */
  stop(): Promise<void>;
  /** Starts it again on the same port and working directory (it adopts what still runs) and waits for it. */
  restart(): Promise<void>;
  /** Replaces the catalog file; the service reads it when it (re)starts. */
  writeCatalog(text: string): Promise<void>;
  /** Stops it and removes the working directory, unless that was given in the options. */
  close(): Promise<void>;
}

/** Every service started and not yet stopped; stopStartedServices() stops them. */
const started = new Set<Service>();

/** For an afterAll: stops every service still running, so that one a failed test left does not hold its ports. */
export async function stopStartedServices(): Promise<void> {
  await Promise.all([...started].map((service) => service.stop()));
}

/** Writes the working directory's files and builds the service's environment. */
async function prepare(options: ServiceOptions, workDir: string, port: number): Promise<NodeJS.ProcessEnv> {
  const { first, last } = testPorts(options.sessionPorts ?? sessionPortRange());
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: options.host ?? '127.0.0.1',
    STREAMGATE_DATA_DIR: path.join(workDir, 'state'),
    STREAMGATE_PORT_RANGE: `${first}-${last}`,
    // No embedded TURN relay unless a test asks for one (its own ports): services of several test files would
    // otherwise race for port 3478, and each would pay coturn's start.
    STREAMGATE_TURN_PORT: 'off',
    LOG_LEVEL: options.logLevel ?? 'warn',
    ...(options.portal === false ? { STREAMGATE_STATIC_DIR: path.join(workDir, 'no-portal') } : {}),
  };
  const { catalog, beside }: CatalogFiles =
    options.catalog === undefined
      ? testCatalog()
      : { catalog: options.catalog, beside: options.beside ?? [] };
  env.STREAMGATE_CATALOG = path.join(workDir, 'catalog.yaml');
  await writeFile(env.STREAMGATE_CATALOG, catalog);
  // The service may run the stand-in in a sandbox, which sees only the files beside the catalog that it names.
  if (catalog.includes(STAND_IN_FILE)) copyStandInTo(workDir);
  for (const name of beside) {
    await rm(path.join(workDir, name), { force: true });
    await mkdir(path.dirname(path.join(workDir, name)), { recursive: true });
    await symlink(path.join(repoRoot, name), path.join(workDir, name));
  }
  for (const [name, text] of Object.entries(options.written ?? {})) {
    await mkdir(path.dirname(path.join(workDir, name)), { recursive: true });
    await writeFile(path.join(workDir, name), text);
  }
  if (options.tokens !== undefined) {
    env.STREAMGATE_TOKENS = path.join(workDir, 'tokens.yaml');
    await writeFile(env.STREAMGATE_TOKENS, options.tokens);
  }
  return { ...env, ...options.env };
}

/** Starts the service and waits until it answers /healthz; throws with its output if it does not. */
export async function startService(options: ServiceOptions = {}): Promise<Service> {
  const workDir = options.workDir ?? (await mkdtemp(path.join(tmpdir(), 'streamgate-service-')));
  const port = options.port ?? (await freePort());
  const url = `http://${options.host ?? '127.0.0.1'}:${port}`;
  let earlier = '';
  let current: OwnedProcess | undefined;
  const node = [process.execPath, '--import', 'tsx', 'server/main.ts'];
  const [command, ...args] = options.shellPrefix
    ? ['sh', '-c', `${options.shellPrefix}; exec "$@"`, 'sh', ...node]
    : node;

  let env: NodeJS.ProcessEnv = {};
  const launch = async () => {
    if (current?.running()) throw new Error('The service is running: stop or kill it before a restart.');
    earlier += current?.output() ?? '';
    current = undefined;
    // Another service there (a run left over, another suite on the same fixed port) would answer /healthz for
    // this one, which then fails to listen: the test would talk to a stranger.
    if (!(await isFree(port))) throw new Error(`Port ${port} is taken: another process listens there.`);
    started.add(service);
    current = await startOwnedProcess({
      name: 'The service',
      command: command as string,
      args,
      cwd: repoRoot,
      env,
      readyUrl: `${url}/healthz`,
      readyWithinMs: options.readyWithinMs ?? 60_000,
      graceMs: 15_000,
      keepOutput: options.keepOutput,
      // As scripts/start.ts does: a test process that dies, even by SIGKILL, closes the channel, and the service
      // then stops by itself and ends its sessions (`child.disconnect()` is that launcher gone).
      ipc: true,
    }).catch((error: unknown) => {
      started.delete(service);
      throw error;
    });
  };
  const ended = async (how: (run: OwnedProcess) => Promise<void>) => {
    if (current) await how(current);
    started.delete(service);
  };

  const service: Service = {
    url,
    api: `${url}/api`,
    port,
    workDir,
    dataDir: path.join(workDir, 'state'),
    get child() {
      if (!current) throw new Error('The service has not started.');
      return current.child;
    },
    output: () => earlier + (current?.output() ?? ''),
    running: () => current?.running() ?? false,
    kill9: () => ended((run) => run.kill9()),
    stop: () => ended((run) => run.stop()),
    restart: launch,
    async writeCatalog(text) {
      await writeFile(path.join(workDir, 'catalog.yaml'), text);
    },
    async close() {
      await service.stop();
      if (options.workDir === undefined) await rm(workDir, { recursive: true, force: true });
    },
  };
  try {
    env = await prepare(options, workDir, port);
    await launch();
  } catch (error) {
    if (options.workDir === undefined) await rm(workDir, { recursive: true, force: true });
    throw error;
  }
  return service;
}
