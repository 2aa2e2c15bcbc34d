import { describe, expect, it, vi } from 'vitest';
import { REMOVED_TEXT } from './player';
import type { PeoplePayload } from './people/people-state';
import { connected as playing, lastPeer, play, posts, withPlayerHarness } from './testing/player-harness';

withPlayerHarness();

const owner = { id: 'owner-1', name: 'Ada', role: 'owner', asking: false } as const;
const guest = { id: 'guest-1', name: 'Guest 1', role: 'watcher', asking: false } as const;
/** `people` as the stream server sends it to viewer `you`, with `controller` in control. */
const people = (you: string, controller: string | null): PeoplePayload => ({
  you,
  controller,
  people: [owner, guest],
});
const event = (event_type: string, payload: unknown) => JSON.stringify({ event_type, payload });

/** A player playing, both channels open; `receive` is a message of the stream server. */
async function connected(mode: 'control' | 'watch') {
  const h = await playing({ mode });
  const { peer } = h;
  const input = () => peer.channel('input').sent.map((s) => JSON.parse(s) as Record<string, unknown>);
  // What a person does on the picture: focus it (the keyboard is captured) and press a key.
  const press = (key: string) => {
    h.video.dispatchEvent(new FocusEvent('focus'));
    h.video.dispatchEvent(new KeyboardEvent('keydown', { key, code: `Key${key.toUpperCase()}` }));
  };
  return {
    ...h,
    log: h.messages,
    input,
    press,
    receive: (type: string, payload: unknown) => h.receive(event(type, payload)),
    requests: () =>
      peer
        .channel('messages')
        .sent.map((s) => JSON.parse(s) as { event_type: string })
        .filter((m) => m.event_type !== 'keepAlive'),
  };
}

describe('the player and the people of a session', () => {
  it('stops sending input while someone else is in control, and starts again when it gets control back', async () => {
    const h = await connected('control');
    const control = vi.fn();
    h.player.addEventListener('control', control);
    h.press('a');
    expect(h.input().map((e) => e.key)).toEqual(['a']);
    h.receive('people', people('owner-1', 'guest-1'));
    expect(control).toHaveBeenLastCalledWith(false);
    expect(h.player.inControl).toBe(false);
    const before = h.input().length;
    h.press('b');
    expect(h.player.sendInput({ type: 'pointermove', x: 1, y: 2, buttons: 0 })).toBe(false);
    expect(h.input()).toHaveLength(before);
    h.receive('people', people('owner-1', 'owner-1'));
    expect(control).toHaveBeenLastCalledWith(true);
    h.press('c');
    expect(h.input().at(-1)).toMatchObject({ type: 'keydown', key: 'c' });
  });

  it('lets a watcher send input only while it was given control, and only for that connection', async () => {
    const h = await connected('watch');
    h.press('a');
    expect(h.input()).toEqual([]);
    h.receive('people', people('guest-1', 'guest-1'));
    expect(h.player.inControl).toBe(true);
    h.press('b');
    expect(h.input()).toEqual([expect.objectContaining({ type: 'keydown', key: 'b' })]);
    // Taken back: nothing more is sent.
    h.receive('people', people('guest-1', 'owner-1'));
    const sent = h.input().length;
    h.press('c');
    expect(h.input()).toHaveLength(sent);
    // Given again, then the connection lost: the next one starts without control.
    h.receive('people', people('guest-1', 'guest-1'));
    h.peer.setConnectionState('failed');
    expect(h.player.inControl).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    await play(h);
    lastPeer().channel('input').open();
    expect(h.player.sendInput({ type: 'keydown', key: 'd', code: 'KeyD' })).toBe(false);
  });

  it("shows the application's cursor only to the one in control, kept for when a watcher gets it", async () => {
    const png =
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/q842iQAAAABJRU5ErkJggg==';
    const h = await connected('watch');
    h.receive('cursorImage', { url: png, hotspot_x: 1, hotspot_y: 2 });
    expect(h.video.style.cursor).toBe('');
    h.receive('people', people('guest-1', 'guest-1'));
    expect(h.video.style.cursor).toBe(`url("${png}") 1 2, default`);
    h.receive('people', people('guest-1', 'owner-1'));
    expect(h.video.style.cursor).toBe('');
  });

  it('says who is here and where the pointer of someone else in control is, none of it in the message log', async () => {
    const h = await connected('control');
    const seen: (PeoplePayload | null)[] = [];
    const pointers: unknown[] = [];
    h.player.addEventListener('people', (p) => seen.push(p));
    h.player.addEventListener('pointer', (p) => pointers.push(p));
    // While it is in control itself, a pointer is a stale one of the one before.
    h.receive('pointer', { x: 1, y: 1 });
    h.receive('people', people('owner-1', 'guest-1'));
    h.receive('pointer', { x: 10, y: 20 });
    h.receive('pointer', { x: 'left', y: 20 });
    h.receive('people', { you: 'owner-1', controller: 7, people: [] });
    // Nobody in control now: no pointer to show.
    h.receive('people', people('owner-1', null));
    expect(seen).toEqual([people('owner-1', 'guest-1'), people('owner-1', null)]);
    expect(pointers).toEqual([{ x: 10, y: 20 }, null]);
    expect(h.log).toEqual([]);
    // The connection gone, what it said no longer holds.
    h.receive('people', people('owner-1', 'guest-1'));
    h.receive('pointer', { x: 3, y: 4 });
    h.player.disconnect();
    expect(seen.at(-1)).toBeNull();
    expect(pointers.at(-1)).toBeNull();
  });

  it('asks, gives, takes and removes on the messages channel, outside the message log', async () => {
    const h = await connected('control');
    expect(h.player.askControl(true)).toBe(true);
    expect(h.player.askControl(false)).toBe(true);
    expect(h.player.giveControl('guest-1')).toBe(true);
    expect(h.player.takeControl()).toBe(true);
    expect(h.player.removeViewer('guest-1')).toBe(true);
    expect(h.requests()).toEqual([
      { event_type: 'controlRequest', payload: { asking: true } },
      { event_type: 'controlRequest', payload: { asking: false } },
      { event_type: 'controlGive', payload: { to: 'guest-1' } },
      { event_type: 'controlTake', payload: {} },
      { event_type: 'viewerRemove', payload: { id: 'guest-1' } },
    ]);
    expect(h.log).toEqual([]);
    h.player.disconnect();
    expect(h.player.takeControl()).toBe(false);
  });

  it('ends a removed viewer for good with the reason, and never reconnects it', async () => {
    const h = await connected('watch');
    const removed = vi.fn();
    h.player.addEventListener('removed', removed);
    h.receive('removed', {});
    expect(removed).toHaveBeenCalledWith(REMOVED_TEXT);
    expect(h.player.state).toEqual({ kind: 'removed', reason: REMOVED_TEXT });
    expect(REMOVED_TEXT).toBe("The session's owner removed you from this session.");
    expect(h.peer.closed).toBe(true);
    // The server closes the connection right after: no countdown, no attempt, and connect() starts none.
    h.peer.setConnectionState('failed');
    h.peer.channel('messages').close();
    await vi.advanceTimersByTimeAsync(120_000);
    h.player.connect();
    h.player.retry();
    await vi.advanceTimersByTimeAsync(0);
    expect(posts(h)).toHaveLength(1);
    expect(h.states.map((s) => s.kind)).not.toContain('reconnecting');
    expect(h.player.state.kind).toBe('removed');
  });
});
