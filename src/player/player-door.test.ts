/** Through the door (CONTRACT §21): where the player posts, which relays its peer connection gets, and when. */
import { expect, it, vi } from 'vitest';
import { answer, lastPeer, play, posts, setup, withPlayerHarness } from './testing/player-harness';
import { FakePeerConnection } from './testing/fake-peer-connection';

withPlayerHarness();

const DOOR = 'http://portal.example.com/api/stream/s1/whep';
const RELAYS = [{ urls: ['turn:portal.example.com:3478?transport=udp'], username: '9:s1', credential: 'c' }];
const LINK =
  '<turn:portal.example.com:3478?transport=udp>; rel="ice-server"; username="9:s1"; credential="c"; credential-type="password"';

function doorAnswers(h: ReturnType<typeof setup>, link?: string) {
  let n = 0;
  h.fetch.mockImplementation(async (_url: string, init?: RequestInit) =>
    init?.method === 'DELETE'
      ? new Response(null, { status: 204 })
      : new Response(answer, {
          status: 201,
          headers: { Location: `/api/stream/s1/whep/r${++n}`, ...(link ? { Link: link } : {}) },
        }),
  );
}

it('auto: posts to the door for routes that name another host, with the ticket’s relays, and keeps the answer', async () => {
  const h = setup({
    door: { mode: 'auto', url: DOOR },
    ticket: async () => ({ ticket: 'T', iceServers: RELAYS }),
  });
  doorAnswers(h, LINK);
  h.player.connect();
  await play(h);
  expect(h.player.state).toEqual({ kind: 'playing' });
  expect(posts(h).map(([url]) => url)).toEqual([DOOR]);
  expect(lastPeer().config.iceServers).toEqual(RELAYS);
  // The door's answer names the way in itself: no candidate is rewritten to the route's host.
  expect(lastPeer().remoteDescription?.sdp).toBe(answer);
  h.player.disconnect();
  await vi.advanceTimersByTimeAsync(0);
  expect(h.fetch.mock.calls.at(-1)?.[0]).toBe('http://portal.example.com/api/stream/s1/whep/r1');
});

it('direct: posts to the application and rewrites its candidate, with no relays', async () => {
  const h = setup({
    door: { mode: 'direct', url: DOOR },
    ticket: async () => ({ ticket: 'T', iceServers: RELAYS }),
  });
  h.player.connect();
  await play(h);
  expect(String(posts(h)[0]?.[0])).toBe('http://stream.example.org:49210/whep');
  expect(lastPeer().config.iceServers).toBeUndefined();
  expect(lastPeer().remoteDescription?.sdp).toContain('stream.example.org 31000 typ host');
});

it('a watch link learns the relays from the first answer and connects again with them at once', async () => {
  const h = setup({ mode: 'watch', door: { mode: 'door', url: DOOR }, ticket: async () => 'shared-ticket' });
  doorAnswers(h, LINK);
  h.player.connect();
  await vi.advanceTimersByTimeAsync(0);
  await play(h);
  expect(FakePeerConnection.created).toHaveLength(2);
  expect(FakePeerConnection.created[0]?.closed).toBe(true);
  expect(lastPeer().config.iceServers).toEqual([
    { urls: ['turn:portal.example.com:3478?transport=udp'], username: '9:s1', credential: 'c' },
  ]);
  expect(posts(h)).toHaveLength(2);
  expect(h.player.state).toEqual({ kind: 'playing' });
  // The first viewer was ended at the application, not left to time out.
  expect(
    h.fetch.mock.calls.some(([url, init]) => init?.method === 'DELETE' && String(url).endsWith('/r1')),
  ).toBe(true);
});

it('a door without relays plays on the one connection', async () => {
  const h = setup({ door: { mode: 'door', url: DOOR }, ticket: async () => 'T' });
  doorAnswers(h);
  h.player.connect();
  await play(h);
  expect(FakePeerConnection.created).toHaveLength(1);
  expect(h.player.state).toEqual({ kind: 'playing' });
});

it('falls back to the routes at once where the service has no door (another deployment: 404 or 405)', async () => {
  const h = setup({ door: { mode: 'auto', url: DOOR }, ticket: async () => 'T' });
  h.fetch.mockImplementation(async (url: string, init?: RequestInit) =>
    init?.method === 'DELETE'
      ? new Response(null, { status: 204 })
      : String(url) === DOOR
        ? new Response('{"detail":"Not Found"}', { status: 404 })
        : new Response(answer, { status: 201, headers: { Location: '/whep/r1' } }),
  );
  h.player.connect();
  await vi.advanceTimersByTimeAsync(0);
  await play(h);
  expect(posts(h).map(([url]) => String(url))).toEqual([DOOR, 'http://stream.example.org:49210/whep']);
  expect(h.player.state).toEqual({ kind: 'playing' });
  expect(h.states.some((state) => state.kind === 'reconnecting')).toBe(false);
});
