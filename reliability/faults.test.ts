/**
 * Faults against a real service process: an application killed with SIGKILL, the service itself killed
 * with SIGKILL and started again on the same data directory (one real sample application among its
 * sessions), and a state file damaged from outside.
 */
import { readFile, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { standInCatalog } from '../test-support/test-support.ts';
import { call } from './support/http.ts';
import { figure } from './support/profile.ts';
import { processesWith, until, type Service } from './support/service.ts';
import { useSuiteService } from './support/suite-service.ts';
import { openViewer } from './support/whep-viewer.ts';

/** The stand-in catalog, plus the real sample application with a 320x180 profile of its own. */
const CATALOG =
  standInCatalog().replace(
    'profiles:\n',
    `  - id: sample
    name: Sample
    description: The sample streaming application.
    tags: [test]
    versions:
      - {version: 1.0.0, description: Real.}
profiles:
`,
  ) +
  `  - id: small
    name: Small
    description: 320x180 at 15 fps.
    applications: [{id: sample, versions: ["*"]}]
    settings: {width: 320, height: 180, fps: 15, startup_timeout_s: 90}
`;

const suite = useSuiteService({
  port: 18230,
  sessionPorts: { first: 25100, last: 25139 },
  catalog: CATALOG,
  env: { STREAMGATE_CAPACITY: '2', STREAMGATE_QUEUE_LIMIT: '4', STREAMGATE_RATE_LIMIT: 'off' },
});

function signalingPort(body: Record<string, unknown>): number {
  const routes = Object.values(body.routes as Record<string, { description: string; source_port: number }[]>);
  return routes.flat().find((r) => r.description === 'signaling')?.source_port ?? 0;
}

describe('faults', () => {
  it('answers 410 within 2 s for an application killed with SIGKILL, and starts the next queued session', async () => {
    const s = await suite.start();
    const a = await suite.create('usd-viewer', 'default');
    const b = await suite.create('usd-viewer', 'default');
    await suite.ready(a);
    await suite.ready(b);
    const c = await suite.create('usd-viewer', 'default');
    expect((await call(`${s.api}/stream/${c}`)).status).toBe(202);

    const pids = processesWith(a);
    expect(pids.length).toBeGreaterThan(0);
    const killedAt = Date.now();
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch (error) {
        // Gone with the one killed before it (a sandbox's processes go with its bwrap).
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    }
    const gone = await until('the killed session to answer 410', async () => {
      const res = await call(`${s.api}/stream/${a}`);
      return res.status === 410 ? res : undefined;
    });
    const after = Date.now() - killedAt;
    figure('application killed (SIGKILL): 410 after', after, 'ms');
    expect(after).toBeLessThan(2_000);
    expect(gone.body.detail).toMatch(/^The session failed: ./);
    // Its capacity went to the next in the queue.
    await suite.ready(c);
    for (const id of [b, c])
      expect((await call(`${s.api}/stream/${id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('keeps ready sessions ready and streamable across a SIGKILL of the service, and orphans nothing', async () => {
    const s = suite.service as Service;
    const real = await suite.create('sample', 'small');
    const standIn = await suite.create('usd-viewer', 'default');
    const before = await suite.ready(real, 90_000);
    const standInBefore = await suite.ready(standIn);
    const pending = await suite.create('usd-viewer', 'default');
    expect((await call(`${s.api}/stream/${pending}`)).status).toBe(202);

    await s.kill9();
    // The applications outlive the service, as they would when it crashes.
    expect(processesWith(real).length).toBeGreaterThan(0);
    const restarted = await suite.start();

    const after = await call(`${restarted.api}/stream/${real}`);
    expect(after.status).toBe(200);
    expect(after.body.routes).toEqual(before.body.routes);
    expect((await call(`${restarted.api}/stream/${standIn}`)).body.routes).toEqual(standInBefore.body.routes);
    const signaling = `http://127.0.0.1:${signalingPort(after.body)}`;
    expect((await fetch(`${signaling}/health`)).status).toBe(200);
    // The restarted service signs tickets its adopted application accepts (one key per data directory).
    const issued = await call(`${restarted.api}/stream/${real}/tickets`, { method: 'POST', body: {} });
    expect(issued.status).toBe(201);
    const viewer = await openViewer(signaling, 20_000, issued.body.ticket as string);
    expect(viewer.status).toBe(201);
    expect(await viewer.ask('loadingStateQuery', 'loadingStateResponse')).toHaveProperty('payload');
    await viewer.close();

    // The pending one waits its turn again or failed with a reason; either way it is not lost.
    const state = await call(`${restarted.api}/stream/${pending}`);
    figure(
      'pending session after the service restart',
      state.status === 410 ? 'failed with a reason' : 'resumed',
    );
    if (state.status === 410) expect(state.body.detail).toMatch(/^The session failed: ./);
    else expect([200, 202]).toContain(state.status);
    figure('service killed (SIGKILL) and restarted: ready sessions kept', 2);

    await restarted.stop();
    const left = await until('every application to exit after the clean stop', () => {
      const pids = [real, standIn, pending].flatMap((id) => processesWith(id));
      return pids.length === 0 ? pids : undefined;
    });
    expect(left).toEqual([]);
  });

  it('recovers from a torn state file, and starts on garbage without a crash loop', async () => {
    const s = await suite.start();
    const id = await suite.create('usd-viewer', 'default');
    const before = await suite.ready(id);
    await s.kill9();
    const file = path.join(s.dataDir, 'sessions.json');
    const size = (await readFile(file)).length;
    // Torn mid-write: the first half of the file.
    await truncate(file, Math.floor(size / 2));
    const restarted = await suite.start();
    const after = await call(`${restarted.api}/stream/${id}`);
    expect(after.status).toBe(200);
    expect(after.body.routes).toEqual(before.body.routes);
    await restarted.stop();

    // Both copies garbage: nothing to recover, but the service starts, stays up and works.
    await writeFile(file, '\0\0{"version":1,"sessions":[{"id":');
    await writeFile(`${file}.bak`, Buffer.from([0xff, 0xfe, 0x00, 0x7b]));
    const fresh = await suite.start();
    for (let i = 0; i < 3; i++) {
      expect((await call(`${fresh.api}/cfg/apps`)).status).toBe(200);
      expect((await call(`${fresh.api}/stream`)).status).toBe(200);
    }
    const next = await suite.create('usd-viewer', 'default');
    await suite.ready(next);
    expect(fresh.child.exitCode).toBeNull();
    expect(fresh.output()).toMatch(/sessions\.json/);
    figure('damaged state files survived (torn, garbage)', 2);
    await fresh.stop();
    expect(processesWith(next)).toEqual([]);
  });
});
