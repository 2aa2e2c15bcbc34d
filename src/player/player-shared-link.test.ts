/**
 * A shared watch link has no API to follow its session by: the application's refusal of its ticket (the owner
 * stopped sharing) and the door's word that the session is gone are final, never retried.
 */
import { expect, it, vi } from 'vitest';
import { lastPeer, play, posts, setup, whepResponse, withPlayerHarness } from './testing/player-harness';
import { REMOVED_LINK_TEXT, SHARING_STOPPED } from './player';

withPlayerHarness();

const DOOR = 'http://portal.example.com/api/stream/s1/whep';
const DIRECT = 'http://stream.example.org:49210/whep?mode=watch';

/**
 * A watcher of a shared link, with its one ticket; it signals straight to the routes (`direct`, the door known)
 * or through the door. `answer` answers the n-th offer.
 */
function watcher(
  answer: (url: string, n: number) => Response | Promise<Response>,
  path: 'direct' | 'door' = 'direct',
) {
  const h = setup({
    mode: 'watch',
    sharedLink: true,
    ticket: async () => 'link-ticket',
    door: { mode: path, url: DOOR },
  });
  let n = 0;
  h.fetch.mockImplementation(async (url: string, init?: RequestInit) =>
    init?.method === 'DELETE' ? new Response(null, { status: 204 }) : answer(String(url), ++n),
  );
  return h;
}

/** Plays, then the application drops the watcher (it closes its side), as at a stop of sharing. */
async function dropped(h: ReturnType<typeof setup>) {
  h.player.connect();
  await play(h);
  expect(h.player.state).toEqual({ kind: 'playing' });
  lastPeer().channel('messages').close();
  await vi.advanceTimersByTimeAsync(0);
  expect(h.player.state.kind).toBe('reconnecting');
}

it('stops for good, in words, when the application refuses the link’s ticket after a stop of sharing', async () => {
  const h = watcher((_url, n) => (n === 1 ? whepResponse(1) : new Response('', { status: 401 })));
  await dropped(h);
  await vi.advanceTimersByTimeAsync(1000);
  expect(h.player.state).toEqual({ kind: 'withdrawn', reason: SHARING_STOPPED });
  expect(SHARING_STOPPED).toMatch(/^The owner stopped sharing this session/);
  // No countdown, no attempt after it, and connect() does not start one either.
  await vi.advanceTimersByTimeAsync(120_000);
  h.player.connect();
  await vi.advanceTimersByTimeAsync(0);
  expect(posts(h)).toHaveLength(2);
  expect(h.states.filter((s) => s.kind === 'reconnecting')).toHaveLength(1);
  expect(h.player.state.kind).toBe('withdrawn');
});

it('stops for good, in words, when the application refuses the link of a viewer its owner removed', async () => {
  const refused = "The session's owner removed you; this link no longer connects to the session.";
  const h = watcher(() => new Response(refused, { status: 403 }));
  h.player.connect();
  await vi.advanceTimersByTimeAsync(0);
  expect(h.player.state).toEqual({ kind: 'removed', reason: REMOVED_LINK_TEXT });
  await vi.advanceTimersByTimeAsync(120_000);
  expect(posts(h)).toHaveLength(1);
});

it('says the session has ended when the door no longer knows it', async () => {
  const h = watcher(
    (_url, n) =>
      n === 1 ? whepResponse(1) : new Response('No session has this id; it may have ended.', { status: 404 }),
    'door',
  );
  await dropped(h);
  await vi.advanceTimersByTimeAsync(1000);
  expect(h.player.state).toEqual({ kind: 'ended', reason: 'This session has ended.' });
  await vi.advanceTimersByTimeAsync(60_000);
  expect(posts(h)).toHaveLength(2);
});

it('says the session failed when the door answers 410', async () => {
  const h = watcher(() => new Response('The session failed; it cannot be watched.', { status: 410 }), 'door');
  h.player.connect();
  await vi.advanceTimersByTimeAsync(0);
  expect(h.player.state).toMatchObject({ kind: 'ended', failed: true });
  await vi.advanceTimersByTimeAsync(60_000);
  expect(posts(h)).toHaveLength(1);
});

it('asks the door when nobody answers at the application’s port, and learns there that the session ended', async () => {
  const h = watcher((url, n) => {
    if (n === 1) return whepResponse(1);
    if (url.startsWith(DOOR))
      return new Response('No session has this id; it may have ended.', { status: 404 });
    throw new TypeError('Failed to fetch');
  });
  await dropped(h);
  await vi.advanceTimersByTimeAsync(1000);
  // The application's port is closed: a lost connection like any other, for now.
  expect(h.player.state).toMatchObject({ kind: 'reconnecting', attempt: 2 });
  await vi.advanceTimersByTimeAsync(2000);
  expect(posts(h).map(([url]) => String(url))).toEqual([DIRECT, DIRECT, `${DOOR}?mode=watch`]);
  expect(h.player.state).toEqual({ kind: 'ended', reason: 'This session has ended.' });
});

it('takes a 404 in JSON for a service without a door, not for an end', async () => {
  const h = watcher(
    (url) =>
      url.startsWith(DOOR) ? Response.json({ detail: 'No such route.' }, { status: 404 }) : whepResponse(1),
    'door',
  );
  h.player.connect();
  await vi.advanceTimersByTimeAsync(0);
  await play(h);
  expect(h.player.state).toEqual({ kind: 'playing' });
});

it('keeps retrying a refusal where it is not a shared link: a signed-in watcher gets a new ticket each time', async () => {
  const h = setup({ mode: 'watch' });
  h.fetch.mockImplementation(async (_url: string, init?: RequestInit) =>
    init?.method === 'DELETE' ? new Response(null, { status: 204 }) : new Response('', { status: 401 }),
  );
  h.player.connect();
  await vi.advanceTimersByTimeAsync(0);
  expect(h.player.state.kind).toBe('reconnecting');
});
