/**
 * Viewers come and go (issue: a viewer that came back killed its session). A real service and a real
 * sample application; 50 viewers connect, resize the stream and leave, half of them with a DELETE and
 * half by dropping the connection, some while the next one is already connecting. The session must
 * still be ready afterwards, and a new viewer must receive video.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { call } from './support/http.ts';
import { figure } from './support/profile.ts';
import { processesWith, removeWorkDir, startService, until, type Service } from './support/service.ts';
import { openViewer, type Viewer } from './support/whep-viewer.ts';
import { sampleCatalog } from '../e2e/support/catalogs.ts';
import { viewerTicket } from './support/session.ts';

const SERVICE_PORT = 18240;
const PORTS = { first: 25600, last: 25619 };
const CYCLES = 50;
const CATALOG = sampleCatalog(
  { width: 320, height: 180, fps: 15, maxWidth: 640, maxHeight: 360 },
  { settings: 'startup_timeout_s: 90' },
);

let service: Service | undefined;
let sessionId = '';

afterAll(async () => {
  await service?.stop();
  for (const pid of processesWith(sessionId)) process.kill(pid, 'SIGKILL');
  if (service) await removeWorkDir(service.workDir);
});

async function ticket(s: Service): Promise<string> {
  return (await viewerTicket(s.api, sessionId)).ticket;
}

/** Waits until `viewer` has received video packets: it is watching, not only connected. */
function watching(viewer: Viewer, what = 'the viewer'): Promise<number> {
  return until(`video to reach ${what}`, () =>
    viewer.videoPackets() > 0 ? viewer.videoPackets() : undefined,
  );
}

describe('viewers who come and go', () => {
  it(`keeps the session ready through ${CYCLES} connect, resize and leave cycles, and a new viewer plays`, async () => {
    const s = (service = await startService({
      port: SERVICE_PORT,
      sessionPorts: PORTS,
      catalog: CATALOG,
      env: { STREAMGATE_RATE_LIMIT: 'off' },
    }));
    const created = await call(`${s.api}/stream`, {
      method: 'POST',
      body: { id: 'sample', profile: 'small' },
    });
    sessionId = created.body.id as string;
    const ready = await until(
      'the session to be ready',
      async () => {
        const res = await call(`${s.api}/stream/${sessionId}`);
        if (res.status === 410) throw new Error(res.text);
        return res.status === 200 ? res : undefined;
      },
      90_000,
    );
    const routes = Object.values(
      ready.body.routes as Record<string, { description: string; source_port: number }[]>,
    );
    const signaling = `http://127.0.0.1:${routes.flat().find((r) => r.description === 'signaling')?.source_port}`;

    const began = Date.now();
    let previous: Viewer | null = null;
    let leftWithoutDelete = 0;
    /** Even cycles leave with a DELETE, odd ones drop the connection without a word. */
    const leave = async (viewer: Viewer, i: number) => {
      if (i % 2 === 0) return viewer.close();
      viewer.drop();
      leftWithoutDelete++;
    };
    for (let i = 0; i < CYCLES; i++) {
      const viewer = await openViewer(signaling, 20_000, await ticket(s));
      // Every fifth viewer stays while the next one connects, and leaves only then.
      if (previous) {
        await leave(previous, i - 1);
        previous = null;
      }
      await watching(viewer, `viewer ${i + 1}`);
      // A different size each time: every resize restarts the application's encoder.
      viewer.input.sendMessage(
        JSON.stringify({ type: 'resize', width: 320 + (i % 8) * 32, height: 180 + (i % 5) * 18 }),
      );
      await sleep(150);
      if (i % 5 === 4) previous = viewer;
      else await leave(viewer, i);
    }
    if (previous) await leave(previous, CYCLES - 1);
    figure(`viewer cycles (connect, video, resize, leave)`, CYCLES);
    figure('of which left without DELETE', leftWithoutDelete);
    figure('cycles took', Date.now() - began, 'ms');

    expect((await call(`${s.api}/stream/${sessionId}`)).status).toBe(200);
    const last = await openViewer(signaling, 20_000, await ticket(s));
    expect(await watching(last)).toBeGreaterThan(0);
    expect(await last.ask('loadingStateQuery', 'loadingStateResponse')).toHaveProperty('payload');
    await last.close();
    expect((await call(`${s.api}/stream/${sessionId}`)).status).toBe(200);
  });
});
