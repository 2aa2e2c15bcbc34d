/**
 * Fair use, against a real service with tokens and real applications: a control ticket serves one
 * connection, watchers leave the last place for the owner, the owner's stop of sharing drops a watcher and
 * its link, and one user holds no more than half the GPUs while another user's session goes ahead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS, TOKENS_YAML } from '../test-support/test-support.ts';
import { call } from './support/http.ts';
import { figure } from './support/profile.ts';
import { processesWith, removeWorkDir, startService, until, type Service } from './support/service.ts';
import { makeOffer, openViewer, type Viewer } from './support/whep-viewer.ts';
import { sampleCatalog } from '../e2e/support/catalogs.ts';
import { viewerTicket } from './support/session.ts';

const SERVICE_PORT = 18280;
const PORTS = { first: 25940, last: 25959 };
// The sample application: three places (two watchers at most), and two GPUs for the share.
const CATALOG = sampleCatalog(
  { width: 320, height: 180, fps: 15 },
  { description: '320x180 at 15 fps, three viewers.', settings: 'max_viewers: 3, startup_timeout_s: 90' },
);

let service: Service;
let sessionId = '';
let signaling = '';
const created: string[] = [];

async function ready(id: string, token = TOKENS.alice) {
  return until(
    `session ${id} to be ready`,
    async () => {
      const res = await call(`${service.api}/stream/${id}`, { token });
      if (res.status === 410) throw new Error(res.text);
      return res.status === 200 ? res : undefined;
    },
    90_000,
  );
}

async function ticket(scope: 'control' | 'watch'): Promise<string> {
  return (await viewerTicket(service.api, sessionId, { scope, token: TOKENS.alice })).ticket;
}

/** POST /whep with a real offer and `token`; the peer is closed at once. */
async function post(token: string): Promise<Response> {
  const { sdp, pc } = await makeOffer();
  try {
    return await fetch(`${signaling}/whep`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/sdp', Authorization: `Bearer ${token}` },
      body: sdp,
    });
  } finally {
    pc.close();
  }
}

async function viewers(): Promise<number> {
  const res = await fetch(`${signaling}/health`, {
    headers: { Authorization: `Bearer ${await ticket('watch')}` },
  });
  return ((await res.json()) as { viewers: number }).viewers;
}

beforeAll(async () => {
  service = await startService({
    port: SERVICE_PORT,
    sessionPorts: PORTS,
    catalog: CATALOG,
    tokens: TOKENS_YAML,
    env: { STREAMGATE_RATE_LIMIT: 'off', STREAMGATE_CAPACITY: '2' },
  });
  const res = await call(`${service.api}/stream`, {
    method: 'POST',
    token: TOKENS.alice,
    body: { id: 'sample', profile: 'small' },
  });
  sessionId = res.body.id as string;
  created.push(sessionId);
  const routes = Object.values(
    (await ready(sessionId)).body.routes as Record<string, { description: string; source_port: number }[]>,
  );
  signaling = `http://127.0.0.1:${routes.flat().find((r) => r.description === 'signaling')?.source_port}`;
});

afterAll(async () => {
  await service?.stop();
  for (const id of created) for (const pid of processesWith(id)) process.kill(pid, 'SIGKILL');
  if (service) await removeWorkDir(service.workDir);
});

describe('fair use', () => {
  it('takes a control ticket for one connection: its second POST /whep is a 401', async () => {
    const once = await ticket('control');
    const viewer = await openViewer(signaling, 20_000, once);
    try {
      const again = await post(once);
      expect(again.status).toBe(401);
      expect(again.headers.get('www-authenticate')).toBe('Bearer');
      expect(await again.text()).toBe('');
    } finally {
      // Spent, the ticket is still the key of its own viewer.
      await viewer.close();
    }
    expect((await post(once)).status).toBe(401);
  });

  it('keeps the last place for the owner: watchers past it get a 503 with a sentence, the owner connects', async () => {
    const link = await ticket('watch');
    const watchers: Viewer[] = [];
    try {
      watchers.push(await openViewer(signaling, 20_000, link), await openViewer(signaling, 20_000, link));
      const third = await post(link);
      expect(third.status).toBe(503);
      expect(await third.text()).toBe(
        'This session already has 2 watchers, its most: its last place is kept for its owner. Try again when one leaves.',
      );
      const owner = await openViewer(signaling, 20_000, await ticket('control'));
      await owner.close();
    } finally {
      for (const watcher of watchers) await watcher.close();
    }
  });

  it('drops a watcher and refuses its link when the owner stops sharing, and takes a link made afterwards', async () => {
    const link = await ticket('watch');
    const watcher = await openViewer(signaling, 20_000, link);
    const owner = await openViewer(signaling, 20_000, await ticket('control'));
    try {
      expect(await viewers()).toBe(2);
      const bob = await call(`${service.api}/stream/${sessionId}/tickets?scope=watch`, {
        method: 'DELETE',
        token: TOKENS.bob,
      });
      expect(bob.status).toBe(403);
      const began = Date.now();
      const stopped = await call(`${service.api}/stream/${sessionId}/tickets?scope=watch`, {
        method: 'DELETE',
        token: TOKENS.alice,
      });
      expect(stopped.status, stopped.text).toBe(204);
      await until('the watcher to be dropped', async () => ((await viewers()) === 1 ? true : undefined));
      figure('stop of sharing until the watcher was dropped', Date.now() - began, 'ms');
      expect((await post(link)).status).toBe(401);
      // The owner watches on; a link made now works.
      expect(await owner.ask('loadingStateQuery', 'loadingStateResponse')).toHaveProperty('payload');
      const again = await openViewer(signaling, 20_000, await ticket('watch'));
      await again.close();
    } finally {
      watcher.drop();
      await owner.close();
    }
  });

  it("holds a user to half the GPUs while another user's session goes ahead of theirs", async () => {
    const start = async (token: string) => {
      const res = await call(`${service.api}/stream`, {
        method: 'POST',
        token,
        body: { id: 'sample', profile: 'small' },
      });
      expect([200, 202], res.text).toContain(res.status);
      created.push(res.body.id as string);
      return res.body.id as string;
    };
    // Alice's sample session holds one of the two GPUs: her next one waits, and says why.
    const alices = await start(TOKENS.alice);
    const waiting = await call(`${service.api}/stream/${alices}`, { token: TOKENS.alice });
    expect(waiting.status).toBe(202);
    expect((waiting.body.status as { message: string }).message).toBe(
      'Waiting: you already use your share of the GPUs (1 of 2); this session starts when one of yours ends',
    );
    // Bob's, asked later, takes the free GPU.
    const bobs = await start(TOKENS.bob);
    await ready(bobs, TOKENS.bob);
    expect((await call(`${service.api}/stream/${alices}`, { token: TOKENS.alice })).status).toBe(202);
    // Bob's ends: Alice's still waits for her share, not for a GPU; her first one ends: it starts.
    expect(
      (await call(`${service.api}/stream/${bobs}`, { method: 'DELETE', token: TOKENS.bob })).status,
    ).toBe(204);
    expect((await call(`${service.api}/stream/${alices}`, { token: TOKENS.alice })).status).toBe(202);
    expect(
      (await call(`${service.api}/stream/${sessionId}`, { method: 'DELETE', token: TOKENS.alice })).status,
    ).toBe(204);
    await ready(alices);
  });
});
