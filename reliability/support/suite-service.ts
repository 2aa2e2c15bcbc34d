/**
 * The set-up each reliability file shares: its service, started on its ports and started again on the same
 * working directory (after a kill, say), and after the file, whatever happened in it, every service stopped,
 * every process of the sessions it launched killed and the working directory removed, so that the machine is
 * clean for the next file either way.
 */
import { afterAll } from 'vitest';
import { call, type Answer } from './http.ts';
import {
  processesWith,
  removeWorkDir,
  startService,
  stopStartedServices,
  type Service,
  type ServiceOptions,
} from './service.ts';
import { readyAnswer, signalingOf, type ReadySession } from './session.ts';

/** A real program on a display host: xterm, on a 320x180 profile that may grow to 640x360. */
export const TERMINAL_CATALOG = `applications:
  - id: terminal
    name: Terminal
    description: A real program, xterm.
    versions:
      - {version: 379.0.0, description: xterm., launch: {display: {command: [xterm]}}}
profiles:
  - id: small
    name: Small
    description: 320x180, up to 640x360.
    applications: [{id: terminal, versions: ["*"]}]
    settings: {width: 320, height: 180, fps: 15, max_width: 640, max_height: 360, startup_timeout_s: 60}
`;

export interface SuiteService {
  /** Starts the service; after the first start, on the working directory of the first (a restart). */
  start(): Promise<Service>;
  /** The service started last. */
  readonly service: Service | undefined;
  /** Remembers a session whose processes are killed after the file; returns its id. */
  track(id: string): string;
  /** POST /stream of `app` on `profile` (a 200 or 202, else throws its answer); the session is tracked. */
  create(app: string, profile: string, body?: Record<string, unknown>): Promise<string>;
  /** Waits until session `id` is ready and returns its answer; a session that fails throws its reason. */
  ready(id: string, timeoutMs?: number): Promise<Answer>;
  /** A ready session of `app` on `profile`, tracked from its creation on. */
  session(app: string, profile: string, timeoutMs?: number): Promise<ReadySession>;
}

/** The file's service, on `options`; its clean-up is registered with the file's `afterAll`. */
export function useSuiteService(options: Omit<ServiceOptions, 'workDir'>): SuiteService {
  let service: Service | undefined;
  let workDir: string | undefined;
  const ids = new Set<string>();

  afterAll(async () => {
    await stopStartedServices();
    for (const id of ids) for (const pid of processesWith(id)) process.kill(pid, 'SIGKILL');
    if (workDir) await removeWorkDir(workDir);
  });

  const suite: SuiteService = {
    async start() {
      service = await startService({ ...options, ...(workDir ? { workDir } : {}) });
      workDir = service.workDir;
      return service;
    },
    get service() {
      return service;
    },
    track(id) {
      ids.add(id);
      return id;
    },
    async create(app, profile, body = {}) {
      if (!service) throw new Error('Start the service before creating sessions.');
      const res = await call(`${service.api}/stream`, {
        method: 'POST',
        body: { id: app, profile, ...body },
      });
      if (res.status !== 200 && res.status !== 202)
        throw new Error(`POST /stream answered ${res.status}: ${res.text}`);
      return suite.track(res.body.id as string);
    },
    ready(id, timeoutMs) {
      if (!service) throw new Error('Start the service before waiting for sessions.');
      return readyAnswer(service, id, timeoutMs);
    },
    async session(app, profile, timeoutMs) {
      const id = await suite.create(app, profile);
      return { id, signaling: signalingOf(await suite.ready(id, timeoutMs)) };
    },
  };
  return suite;
}
