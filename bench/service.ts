/**
 * The service as a user's program meets it: `server/main.ts` started as a process of its own with its settings
 * in its environment and a catalog file, reached over HTTP only. The benches that measure the service start it
 * here, on the tests' own harness, so that a figure includes everything the real service does (its hooks, its
 * logging, its sandbox).
 */
import { startService as startHarnessService } from '../test-support/service';

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
  /** SIGTERM (the service ends every session), SIGKILL after a grace; then its folder is removed. */
  stop(): Promise<void>;
}

export interface ServiceOptions {
  port: number;
  /** The catalog's YAML text. */
  catalog: string;
  /** More settings (CONTRACT section 2), e.g. STREAMGATE_CAPACITY. */
  env?: Record<string, string>;
}

/**
 * Starts the service through the one harness the tests use (test-support/service.ts) and resolves once it answers
 * /healthz; rejects with its words if it exits. Each line is logged, as in production, and only the tail of the
 * output is kept, so that a bench of a hundred thousand requests does not measure a growing string.
 */
export async function startService(options: ServiceOptions): Promise<ServiceProcess> {
  const service = await startHarnessService({
    port: options.port,
    catalog: options.catalog,
    env: options.env,
    logLevel: 'info',
    keepOutput: 4000,
  });
  return { base: service.url, pid: service.child.pid ?? 0, stop: () => service.close() };
}
