/**
 * Who may connect to a running application (CONTRACT section 14): tickets, scopes, the viewer limit and
 * the allowed origins, against the real application with real WebRTC viewers (node-datachannel).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeUdpPort } from '../../test-support/ports.ts';
import { answers, until } from '../../test-support/until.ts';
import { secretFile } from '../../test-support/secret-file.ts';
import { makeOffer, openViewer } from '../../test-support/whep-viewer.ts';
import { signTicket, type TicketScope } from '../../protocol/viewer-ticket.ts';
import { startStreamer, type Streamer } from '../sample/app.ts';
import { parseLaunch } from '../../protocol/launch.ts';

const SESSION = '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
const secret = new Uint8Array(Buffer.alloc(32, 9));
const PORTAL = 'http://portal.example:8080';

const ticket = async (scope: TicketScope = 'control', key = secret, session = SESSION, now = Date.now()) =>
  (await signTicket(key, session, scope, 60, now)).ticket;

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('an application given a viewer secret', () => {
  let streamer: Streamer;
  let base: string;

  beforeAll(async () => {
    const mediaPort = await freeUdpPort();
    const options = parseLaunch(
      ['--signaling-port', '1', '--media-port', String(mediaPort), '--width', '320', '--height', '240'],
      {
        STREAMGATE_VIEWER_SECRET_FILE: secretFile(Buffer.from(secret).toString('base64url')),
        STREAMGATE_ALLOWED_ORIGINS: PORTAL,
        STREAMGATE_MAX_VIEWERS: '2',
      },
    );
    streamer = await startStreamer({ ...options, sessionId: SESSION, signalingPort: 0 });
    base = `http://127.0.0.1:${streamer.signalingPort}`;
    await until('the application to answer /health', () => answers(`${base}/health`));
  });

  afterAll(async () => {
    await streamer?.close();
  });

  const post = async (headers: Record<string, string>, query = '') => {
    const { sdp, pc } = await makeOffer();
    const res = await fetch(`${base}/whep${query}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/sdp', ...headers },
      body: sdp,
    });
    pc.close();
    return res;
  };

  it('tells a stranger only that it is ready', async () => {
    expect(await (await fetch(`${base}/health`)).json()).toEqual({ status: 'ready' });
    const told = await (await fetch(`${base}/health`, { headers: bearer(await ticket('watch')) })).json();
    expect(told).toMatchObject({ status: 'ready', viewers: 0, width: 320, height: 240 });
  });

  it.each([
    ['no ticket', async () => ({})],
    ['a ticket signed with another key', async () => bearer(await ticket('control', new Uint8Array(32)))],
    ['a ticket of another session', async () => bearer(await ticket('control', secret, crypto.randomUUID()))],
    ['an expired ticket', async () => bearer(await ticket('control', secret, SESSION, Date.now() - 120_000))],
    ['a ticket that is not one', async () => bearer('not.a.ticket')],
    ['another scheme', async () => ({ Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` })],
  ])('refuses a viewer with %s: 401 and nothing else', async (_name, headers) => {
    const res = await post(await headers());
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.text()).toBe('');
    expect(streamer.viewers()).toBe(0);
  });

  it('lets only the ticket that made a viewer delete it', async () => {
    const mine = await ticket();
    const res = await post(bearer(mine));
    expect(res.status).toBe(201);
    const location = `${base}${res.headers.get('location')}`;
    expect((await fetch(location, { method: 'DELETE' })).status).toBe(401);
    expect((await fetch(location, { method: 'DELETE', headers: bearer(await ticket()) })).status).toBe(403);
    expect(streamer.viewers()).toBe(1);
    expect((await fetch(location, { method: 'DELETE', headers: bearer(mine) })).status).toBe(204);
    expect(streamer.viewers()).toBe(0);
    const unknown = `${base}/whep/0b7e6f2c-1f7a-4d2e-9a51-5d1c0e7a9b11`;
    expect((await fetch(unknown, { method: 'DELETE' })).status).toBe(401);
    expect((await fetch(unknown, { method: 'DELETE', headers: bearer(mine) })).status).toBe(404);
  });

  it('refuses the viewer past its limit with a sentence, and takes one again when one leaves', async () => {
    const first = await openViewer(base, 20_000, await ticket());
    const second = await openViewer(base, 20_000, await ticket());
    try {
      const third = await post(bearer(await ticket()));
      expect(third.status).toBe(503);
      expect(await third.text()).toMatch(/already has 2 viewers/);
    } finally {
      await first.close();
    }
    const again = await openViewer(base, 20_000, await ticket());
    await again.close();
    await second.close();
  });

  it('answers only the portal origin, and refuses pages of other sites', async () => {
    const preflight = (origin: string) =>
      fetch(`${base}/whep`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' },
      });
    expect((await preflight(PORTAL)).headers.get('access-control-allow-origin')).toBe(PORTAL);
    const foreign = await preflight('http://evil.example');
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect((await post({ ...bearer(await ticket()), Origin: 'http://evil.example' })).status).toBe(403);
  });

  it('lets a watch ticket watch but change nothing, whatever the viewer asks for', async () => {
    const watcher = await openViewer(base, 20_000, await ticket('watch'));
    const owner = await openViewer(base, 20_000, await ticket('control'));
    try {
      const refused = await watcher.ask('openStageRequest', 'error', { url: 'omniverse://evil/stage.usd' });
      expect(String((refused.payload as { message: string }).message)).toMatch(/not in control/);
      watcher.input.sendMessage(JSON.stringify({ type: 'resize', width: 200, height: 160 }));
      const state = await owner.ask('loadingStateQuery', 'loadingStateResponse');
      expect(state.payload).toMatchObject({ url: '' });
      // A query changes nothing, so a watcher may ask it.
      expect((await watcher.ask('loadingStateQuery', 'loadingStateResponse')).payload).toMatchObject({
        url: '',
      });
      await sleep(300);
      const told = await (await fetch(`${base}/health`, { headers: bearer(await ticket('watch')) })).json();
      expect(told).toMatchObject({ width: 320, height: 240, viewers: 2 });
    } finally {
      await watcher.close();
      await owner.close();
    }
  });
});
