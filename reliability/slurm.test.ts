/**
 * Faults of a Slurm cluster under a real service with STREAMGATE_RUNNER=slurm (CONTRACT §18, issue 24), on the
 * two-node test cluster of scripts/slurm-cluster.sh (one for the whole file): a node that dies (its session ends
 * with the reason, the node comes back), a job whose application never listens (it fails after the start-up
 * timeout and its job is cancelled), a session started as an srun step (STREAMGATE_SLURM_LAUNCH=step) that outlives a
 * SIGKILL of its service, and no streamgate-* job left at the end. (slurmctld down is not here yet:
 * `squeue --json` answers an empty list when the controller is down, which the runner takes for no jobs.)
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleCatalog } from '../e2e/support/catalogs.ts';
import { startTestCluster, type TestCluster } from '../test-support/slurm-cluster.ts';
import { call, type Answer } from './support/http.ts';
import { figure } from './support/profile.ts';
import {
  processesWith,
  removeWorkDir,
  startService,
  stopStartedServices,
  until,
  type Service,
} from './support/service.ts';

const SERVICE_PORT = 18290;
const PORTS = { first: 25980, last: 25999 };
/** The sample application, and `silent`, whose launch runs but never listens, on a profile that waits 5 s. */
const CATALOG = sampleCatalog({ width: 320, height: 180, fps: 15 })
  .replace(
    'profiles:\n',
    `  - id: silent
    name: Silent
    description: Starts, and never listens.
    tags: [test]
    versions:
      - {version: 1.0.0, description: Sleeps., launch: {command: [sleep, "600"]}}
profiles:
  - id: short
    name: Short
    description: Five seconds to start.
    applications: [{id: silent, versions: ["*"]}]
    settings: {width: 320, height: 180, startup_timeout_s: 5}
`,
  )
  .replace("applications:\n      - id: '*'", 'applications:\n      - id: sample')
  .replace('max_height: 180 }', 'max_height: 180, startup_timeout_s: 90 }');

let cluster: TestCluster | undefined;
let service: Service;

beforeAll(async () => {
  cluster = await startTestCluster();
  service = await startService({
    port: SERVICE_PORT,
    sessionPorts: PORTS,
    catalog: CATALOG,
    env: { ...cluster.env, STREAMGATE_RUNNER: 'slurm', STREAMGATE_RATE_LIMIT: 'off' },
  });
}, 240_000);

afterAll(async () => {
  await stopStartedServices();
  if (service) await removeWorkDir(service.workDir);
  await cluster?.stop();
}, 120_000);

function slurm(tool: string, args: string[]): Promise<string> {
  if (!cluster) throw new Error('The test cluster did not start');
  return cluster.slurm(tool, args);
}

async function launch(app = 'sample', profile = 'small', api = service.api): Promise<Answer> {
  return call(`${api}/stream`, { method: 'POST', body: { id: app, profile } });
}

async function created(app = 'sample', profile = 'small', api = service.api): Promise<string> {
  const res = await launch(app, profile, api);
  expect([200, 202], res.text).toContain(res.status);
  return res.body.id as string;
}

/** The session once ready; a session that fails throws its reason. */
async function ready(id: string, timeoutMs = 90_000, api = service.api): Promise<Answer> {
  return until(
    `session ${id} to be ready`,
    async () => {
      const res = await call(`${api}/stream/${id}`);
      if (res.status === 410) throw new Error(`session ${id} failed: ${res.text}`);
      return res.status === 200 ? res : undefined;
    },
    timeoutMs,
    250,
  );
}

async function ended(id: string, timeoutMs: number): Promise<Answer> {
  return until(
    `session ${id} to end (410)`,
    async () => {
      const res = await call(`${service.api}/stream/${id}`);
      return res.status === 410 ? res : undefined;
    },
    timeoutMs,
    250,
  );
}

/** The node address and signaling URL a ready session's routes name. */
function where(body: Record<string, unknown>): { host: string; health: string } {
  const routes = body.routes as Record<string, { description: string; source_port: number }[]>;
  const [host = '', list = []] = Object.entries(routes)[0] ?? [];
  const port = list.find((route) => route.description === 'signaling')?.source_port;
  return { host, health: `http://${host}:${port}/health` };
}

async function end(id: string, api = service.api): Promise<void> {
  expect((await call(`${api}/stream/${id}`, { method: 'DELETE' })).status).toBe(204);
}

/** The session id of a process (the sixth field of /proc/<pid>/stat). */
function sessionOf(pid: number): string {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[3] ?? '';
}

/** The streamgate-* jobs that Slurm has pending or running, as "name STATE". */
async function activeJobs(): Promise<string[]> {
  const out = await slurm('squeue', ['--noheader', '--format=%j %T']);
  return out.split('\n').filter((line) => line.startsWith('streamgate-'));
}

describe('sessions on Slurm, under faults', () => {
  it('answers 503 in words while slurmctld is down, keeps a ready session streaming, and launches again once it is back', async () => {
    const before = await created();
    const { host, health } = where((await ready(before)).body);
    expect(cluster?.nodes.map((node) => node.addr)).toContain(host);

    const stoppedAt = Date.now();
    await cluster?.stopController();
    const refused = await until(
      'a launch to be refused with 503',
      async () => {
        const res = await launch();
        if (res.status !== 503) {
          // One accepted before the service noticed is no part of the test: end it.
          if (res.body.id) await call(`${service.api}/stream/${res.body.id}`, { method: 'DELETE' });
          return undefined;
        }
        return res;
      },
      60_000,
      500,
    );
    figure('slurmctld stopped: launches refused after', Date.now() - stoppedAt, 'ms');
    expect(refused.body.detail).toMatch(/^The Slurm cluster does not answer \(slurmctld is down/);

    // The running session goes on: still ready, and its application still answers on its node.
    const during = await call(`${service.api}/stream/${before}`);
    expect(during.status).toBe(200);
    expect(where(during.body).host).toBe(host);
    expect((await fetch(health)).status).toBe(200);

    const startedAt = Date.now();
    await cluster?.startController();
    const next = await until(
      'a launch to be accepted again',
      async () => {
        const res = await launch();
        return res.status === 503 ? undefined : res;
      },
      60_000,
      500,
    );
    expect([200, 202], next.text).toContain(next.status);
    await ready(next.body.id as string);
    figure('slurmctld back: a new session ready after', Date.now() - startedAt, 'ms');
    expect((await call(`${service.api}/stream/${before}`)).status).toBe(200);
    await end(before);
    await end(next.body.id as string);
  });

  it('fails a job whose application never listens after the start-up timeout, and cancels its job', async () => {
    const id = await created('silent', 'short');
    const startedAt = Date.now();
    const gone = await ended(id, 60_000);
    figure('never listening: failed after', Date.now() - startedAt, 'ms');
    // The job writes its ports once the application says it listens (CONTRACT §18): this one never does.
    expect(gone.body.detail).toMatch(
      /^The session failed: Silent 1\.0\.0 started on node\d but never said where it listens; its Slurm job was cancelled$/,
    );
    const state = await until(
      'its job to be gone or cancelled',
      async () => {
        const out = await slurm('squeue', [
          '--noheader',
          '--states=all',
          `--name=streamgate-${id}`,
          '--format=%T',
        ]);
        return /^(CANCELLED)?$/.test(out.trim()) ? out.trim() || 'gone' : undefined;
      },
      30_000,
      250,
    );
    figure('never listening: its job', state);
  });

  it('ends the session of a node that dies with the reason, and the node comes back', async () => {
    const node2 = cluster?.nodes.find((node) => node.name === 'node2')?.addr;
    const ids = [await created(), await created()];
    const hosts = await Promise.all(ids.map(async (id) => where((await ready(id)).body).host));
    const victim = ids[hosts.indexOf(node2 ?? '')];
    const survivor = ids.find((id) => id !== victim) as string;
    expect(victim, `one session on node2 (${node2}); hosts: ${hosts.join(', ')}`).toBeDefined();

    const killedAt = Date.now();
    await cluster?.killNode('node2');
    const gone = await ended(victim as string, 120_000);
    figure('node2 killed: its session ended after', Date.now() - killedAt, 'ms');
    expect(gone.body.detail).toMatch(/was ended: its node node2 failed/);
    expect((await call(`${service.api}/stream/${survivor}`)).status).toBe(200);

    await cluster?.startNode('node2');
    const state = await until(
      'node2 to be back',
      async () => {
        const out = (await slurm('sinfo', ['--noheader', '--nodes=node2', '--format=%t'])).trim();
        // It passes through other states (mix*, down*) while it registers again.
        return out === 'idle' ? out : undefined;
      },
      90_000,
      500,
    );
    figure('node2 started again: back after', Date.now() - killedAt, 'ms');
    expect(state).toBe('idle');
    await end(survivor);
  });

  it('starts a session as an srun step that outlives a SIGKILL of its service, and leaves no srun once it ends', async () => {
    const steps = await startService({
      port: SERVICE_PORT + 1,
      sessionPorts: PORTS,
      catalog: CATALOG,
      env: {
        ...cluster?.env,
        STREAMGATE_RUNNER: 'slurm',
        STREAMGATE_SLURM_LAUNCH: 'step',
        STREAMGATE_RATE_LIMIT: 'off',
      },
    });
    try {
      const postedAt = Date.now();
      const id = await created('sample', 'small', steps.api);
      const { health } = where((await ready(id, 90_000, steps.api)).body);
      figure('srun step: ready after', Date.now() - postedAt, 'ms');
      expect((await fetch(health)).status).toBe(200);
      // srun (and the helper it forks), each in a session other than the service's.
      const srun = processesWith(`--job-name=streamgate-${id}`);
      expect(srun.length).toBeGreaterThan(0);
      for (const pid of srun) expect(sessionOf(pid)).not.toBe(sessionOf(steps.child.pid ?? 0));

      // srun is in a session of its own: the service's SIGKILL leaves it, and so the job and its application.
      await steps.kill9();
      await steps.restart();
      expect((await ready(id, 30_000, steps.api)).status).toBe(200);
      expect((await fetch(health)).status).toBe(200);

      await end(id, steps.api);
      const left = await until(
        'its srun to end with its job',
        async () => (processesWith(`--job-name=streamgate-${id}`).length === 0 ? [] : undefined),
        30_000,
        250,
      );
      expect(left).toEqual([]);
    } finally {
      await steps.close();
    }
  });

  it('leaves no streamgate job behind once its sessions have ended', async () => {
    const left = await until(
      'no streamgate job pending or running',
      async () => {
        const jobs = await activeJobs();
        return jobs.length === 0 ? jobs : undefined;
      },
      30_000,
      250,
    );
    expect(left).toEqual([]);
    const sessions = await call(`${service.api}/stream`);
    expect(JSON.stringify(sessions.body)).not.toMatch(/"condition":"(ready|starting)"/);
  });
});
