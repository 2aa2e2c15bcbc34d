/**
 * Shared by the session tests: requests that launch the stand-in application, manager options with
 * small timeouts, and waiting for a condition without timing assertions.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive, signalGroup } from '../server/runners/process-group.ts';
import { canBind } from '../server/runners/port-pool.ts';
import { testPorts } from './ports.ts';
import { ServiceSandbox } from '../server/runners/service-sandbox.ts';
import { LocalRunner, type LocalRunnerOptions } from '../server/runners/local.ts';
import { createSessionManager } from '../server/sessions/manager.ts';
import { processesWith } from './processes.ts';
import { STAND_IN_FILE, standInDir } from './stand-in-bundle.ts';
import type { ProfileSettings } from '../server/catalog/model.ts';
import type { SessionManagerOptions } from '../server/sessions/options.ts';
import type { SessionManager } from '../server/sessions/types.ts';
import type { SessionLogger, SessionRequest } from '../server/runners/runner.ts';

export const testSettings: ProfileSettings = {
  width: 640,
  height: 360,
  fps: 30,
  maxWidth: 1280,
  maxHeight: 720,
  startupTimeoutMs: 20_000,
  maxLifetimeMs: 600_000,
  idleTimeoutMs: 600_000,
  audio: true,
  maxViewers: 8,
  warm: 0,
  gpus: 1,
  limits: { cpus: 1, memoryMb: 4096, pids: 512 },
  filesMb: 512,
};

/** The launch command of the stand-in application, its ports and host left to the manager to fill in. */
export function standInCommand(flags: string[] = []): string[] {
  return [
    process.execPath,
    STAND_IN_FILE,
    '--session-id',
    '{session_id}',
    '--signaling-port',
    '{signaling_port}',
    '--media-port',
    '{media_port}',
    '--host',
    '{host}',
    ...flags,
  ];
}

/** A request whose application is the stand-in, given extra stand-in flags. */
export function standInRequest(
  flags: string[] = [],
  settings: Partial<ProfileSettings> = {},
  owner = 'alice',
): SessionRequest {
  return {
    owner,
    app: { id: 'usd-viewer', name: 'USD Viewer' },
    version: '1.2.0',
    profile: { id: 'default', name: 'Default', settings: { ...testSettings, ...settings } },
    launch: { command: standInCommand(flags) },
    arguments: { usd_stage_uri: 'omniverse://example/stage.usd' },
  };
}

export async function tempDataDir(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'streamgate-sessions-'));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/**
 * What a test of sessions sets, in one bag: the manager's options and its local runner's (`testManager`
 * builds the runner from them, as main.ts does), or a runner of its own.
 */
export type TestSettings = Omit<SessionManagerOptions, 'runner'> &
  Omit<LocalRunnerOptions, 'logDir' | 'logger'> & { runner?: SessionManagerOptions['runner'] };

/** Settings of the session tests: the stand-in on ports [first, last] of the calling file, small waits. */
export function testOptions(dataDir: string, first: number, last: number): TestSettings {
  return {
    dataDir,
    portRange: testPorts({ first, last }),
    capacity: 2,
    queueLimit: 2,
    publicHost: '127.0.0.1',
    readyWaitMs: 0,
    failedRetentionMs: 60_000,
    stopGraceMs: 1_000,
    readyPollMs: 50,
    healthPollMs: 100,
    sandbox: ServiceSandbox.unsandboxedForTests(),
    // The stand-in is there (stand-in-bundle.ts).
    appCwd: standInDir(),
  };
}

const silent: SessionLogger = { info: () => {}, warn: () => {}, error: () => {} };

/**
 * A manager over a local runner, both built from `settings` as main.ts builds them (the applications' logs in
 * the data directory), or over `settings.runner`; `logger` hears both.
 */
export function testManager(settings: TestSettings, logger: SessionLogger = silent): SessionManager {
  const { portRange, capacity, stopGraceMs, sandbox, appCwd, probeH264, runner, ...options } = settings;
  const local = () =>
    new LocalRunner({
      publicHost: options.publicHost,
      portRange,
      capacity,
      logDir: path.join(options.dataDir, 'logs'),
      stopGraceMs,
      sandbox,
      ...(appCwd === undefined ? {} : { appCwd }),
      ...(probeH264 === undefined ? {} : { probeH264 }),
      logger,
    });
  return createSessionManager({ ...options, runner: runner ?? local() }, logger);
}

/** Polls `condition` until it holds; throws with `what` after `timeoutMs` (a guard, not a measurement). */
export async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 25_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Last resort for a failing test: kills the groups of pids it started. */
export function killGroups(pids: Iterable<number | undefined>): void {
  for (const pid of pids) {
    if (pid !== undefined && isAlive(pid)) signalGroup(pid, 'SIGKILL');
  }
}

/** After a test: stops its manager, kills what is left of the processes it saw and removes its data directory. */
export async function tearDown(
  manager: SessionManager | undefined,
  pids: Set<number | undefined>,
  dataDir: string | undefined,
): Promise<void> {
  await manager?.stop();
  killGroups(pids);
  pids.clear();
  if (dataDir) await removeDir(dataDir);
}

/** Live processes that name the session in their command line or environment (test-support/processes.ts). */
export function sessionProcesses(sessionId: string): number[] {
  return processesWith(sessionId);
}

/**
 * The first run of `count` consecutive ports in [first, last] that are free right now (TCP and UDP).
 * Test ranges lie among the system's ephemeral ports, where any passing connection may hold one.
 */
export async function freeBlock(first: number, last: number, count: number): Promise<number> {
  for (let start = first; start + count - 1 <= last; start++) {
    let free = true;
    for (let port = start; free && port < start + count; port++) {
      free = (await canBind(port, 'tcp')) && (await canBind(port, 'udp'));
    }
    if (free) return start;
  }
  throw new Error(`No ${count} free consecutive ports in ${first}-${last}`);
}

/** The environment a process was started with (Linux). */
export async function environmentOf(pid: number): Promise<Record<string, string>> {
  const raw = await readFile(`/proc/${pid}/environ`, 'utf8');
  return Object.fromEntries(raw.split('\0').map((entry) => [entry.split('=')[0], entry.split('=')[1]]));
}
