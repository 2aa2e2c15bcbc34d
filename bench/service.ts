/**
 * The service as a user's program meets it: `server/main.ts` started as a process of its own with its settings
 * in its environment and a catalog file, reached over HTTP only. The benches that measure the service start it
 * here, so that a figure includes everything the real service does (its hooks, its logging, its sandbox).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stopChild } from '../streamer/runtime/lifecycle';

const root = path.resolve(import.meta.dirname, '..');

/**
 * An application for a catalog's `launch.command` that does the least an application does: it answers 200 on
 * `/health` on its signaling port. Inline, so that it needs no file inside the session's sandbox.
 */
export const STAND_IN_COMMAND = [
  process.execPath,
  '-e',
  "require('node:http').createServer((q, r) => r.end('{}')).listen({signaling_port}, '{host}')",
];

/**
 * A catalog with the stand-in (application `stand-in`, version 1.0.0, which holds a GPU and answers its health
 * check), the `applications` entries given, and one profile, `default`, for all of them (idle: 60 min).
 */
export function standInCatalog(applications = ''): string {
  return `applications:
${applications}  - id: stand-in
    name: Stand-in
    description: Answers its health check and nothing else.
    versions:
      - version: 1.0.0
        description: A Node one-liner.
        launch: { command: ${JSON.stringify(STAND_IN_COMMAND)} }
profiles:
  - id: default
    name: Default
    description: One GPU.
    applications: [{ id: '*', versions: ['*'] }]
    settings: { idle_timeout_min: 60 }
`;
}

export interface ServiceProcess {
  /** `http://127.0.0.1:PORT`. */
  base: string;
  pid: number;
  /** SIGTERM (the service ends every session), SIGKILL after 10 s; then its folder is removed. */
  stop(): Promise<void>;
}

export interface ServiceOptions {
  port: number;
  /** The catalog's YAML text. */
  catalog: string;
  /** More settings (CONTRACT section 2), e.g. STREAMGATE_CAPACITY. */
  env?: Record<string, string>;
  /** The `Authorization` of the readiness check, for a service with a tokens file; none by default. */
  credential?: string;
}

/** Starts the service and resolves once it answers `GET /api/cfg/apps`; rejects with its words if it exits. */
export async function startService(options: ServiceOptions): Promise<ServiceProcess> {
  const dir = await mkdtemp(path.join(tmpdir(), 'streamgate-bench-service-'));
  const catalog = path.join(dir, 'catalog.yaml');
  await writeFile(catalog, options.catalog);
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(options.port),
      HOST: '127.0.0.1',
      STREAMGATE_CATALOG: catalog,
      STREAMGATE_DATA_DIR: path.join(dir, 'data'),
      // Each line logged, as in production; the lines go nowhere.
      LOG_LEVEL: 'info',
      ...options.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  child.stderr?.on('data', (chunk: Buffer) => (said = (said + chunk.toString()).slice(-4000)));
  const base = `http://127.0.0.1:${options.port}`;
  const stop = async () => {
    await stopChild(child, 10_000);
    await rm(dir, { recursive: true, force: true });
  };
  for (const started = Date.now(); Date.now() - started < 60_000; await sleep(50)) {
    if (child.exitCode !== null) break;
    const headers = options.credential ? { authorization: options.credential } : undefined;
    const answer = await fetch(`${base}/api/cfg/apps`, { headers }).catch(() => undefined);
    if (answer?.ok) return { base, pid: child.pid ?? 0, stop };
  }
  await stop();
  throw new Error(`The service did not start: ${said.trim() || 'no answer in 60 s'}`);
}
