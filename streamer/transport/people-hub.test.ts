/**
 * The people of a session as the stream server applies them (people-hub.ts), with viewers that only record what
 * they are sent, and the pointer's rate on fake time.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppMessage, InputEvent } from '../../protocol/data-channels.ts';
import { POINTER_RATE_HZ, type PeoplePayload } from '../../protocol/people.ts';
import { PeopleHub, REMOVED_MESSAGE, type Member } from './people-hub.ts';

class FakeViewer implements Member {
  readonly sent: AppMessage[] = [];
  closed = false;
  ticketRefused = false;
  constructor(readonly id: string) {}
  sendMessage(message: AppMessage): void {
    this.sent.push(message);
  }
  close(): void {
    this.closed = true;
  }
  of(type: string): Record<string, unknown>[] {
    return this.sent.filter((m) => m.event_type === type).map((m) => m.payload);
  }
  /** The last `people` it was sent. */
  people(): PeoplePayload | undefined {
    return this.of('people').at(-1) as PeoplePayload | undefined;
  }
}

const move = (x: number, y: number): InputEvent => ({ type: 'pointermove', x, y, buttons: 0 });
const STEP_MS = 1000 / POINTER_RATE_HZ;

describe('the people of a stream server', () => {
  let changes: number;
  let handovers: (string | null)[];
  let hub: PeopleHub<FakeViewer>;
  const join = (id: string, scope: 'control' | 'watch', name?: string) => {
    const viewer = new FakeViewer(id);
    hub.join(viewer, scope, name, () => (viewer.ticketRefused = true));
    return viewer;
  };

  beforeEach(() => {
    vi.useFakeTimers();
    changes = 0;
    handovers = [];
    hub = new PeopleHub<FakeViewer>({
      onChange: () => changes++,
      onControl: (controller) => handovers.push(controller?.id ?? null),
    });
  });
  afterEach(() => {
    hub.close();
    vi.useRealTimers();
  });

  it('tells everyone who is here after each arrival, each seeing itself as `you`', () => {
    const alice = join('alice', 'control', 'Alice');
    const guest = join('guest', 'watch');
    expect(alice.people()).toEqual({
      you: 'alice',
      controller: 'alice',
      people: [
        { id: 'alice', name: 'Alice', role: 'owner', asking: false },
        { id: 'guest', name: 'Guest 1', role: 'watcher', asking: false },
      ],
    });
    expect(guest.people()).toEqual({ ...alice.people(), you: 'guest' });
    expect(changes).toBe(2);
    expect(handovers).toEqual(['alice']);
  });

  it('greets a viewer whose messages channel opens with who is here', () => {
    const alice = join('alice', 'control');
    alice.sent.length = 0;
    hub.greet(alice);
    expect(alice.sent).toEqual([{ event_type: 'people', payload: alice.people() }]);
  });

  it('tells the others when one leaves, and hands control on', () => {
    const alice = join('alice', 'control', 'Alice');
    const bob = join('bob', 'control', 'Bob');
    hub.leave(alice);
    expect(bob.people()?.controller).toBe('bob');
    expect(bob.people()?.people.map((p) => p.id)).toEqual(['bob']);
    expect(hub.controls(bob)).toBe(true);
    expect(hub.controller()).toBe(bob);
    expect(handovers).toEqual(['alice', 'bob']);
    // A second goodbye of the same viewer is nothing.
    const before = changes;
    hub.leave(alice);
    expect(changes).toBe(before);
  });

  it('answers a request that is not allowed to its sender alone, in words, and changes nothing', () => {
    const alice = join('alice', 'control');
    const guest = join('guest', 'watch');
    alice.sent.length = 0;
    guest.sent.length = 0;
    const before = changes;
    hub.request({ event_type: 'controlTake', payload: {} }, guest);
    expect(guest.sent).toEqual([{ event_type: 'error', payload: { message: expect.stringMatching(/ask/) } }]);
    expect(alice.sent).toEqual([]);
    expect(changes).toBe(before);
    expect(hub.controls(alice)).toBe(true);
  });

  it('hands control over on a give, and tells everyone', () => {
    const alice = join('alice', 'control');
    const guest = join('guest', 'watch');
    hub.request({ event_type: 'controlRequest', payload: { asking: true } }, guest);
    expect(alice.people()?.people[1]?.asking).toBe(true);
    hub.request({ event_type: 'controlGive', payload: { to: 'guest' } }, alice);
    expect(hub.controls(guest)).toBe(true);
    expect(hub.controls(alice)).toBe(false);
    expect(hub.controller()).toBe(guest);
    for (const viewer of [alice, guest]) expect(viewer.people()?.controller).toBe('guest');
    expect(handovers).toEqual(['alice', 'guest']);
  });

  it('removes a watcher: it hears so, its ticket is refused, its connection ends, the others are told', () => {
    const alice = join('alice', 'control');
    const guest = join('guest', 'watch');
    const other = join('other', 'watch');
    guest.sent.length = 0;
    hub.request({ event_type: 'viewerRemove', payload: { id: 'guest' } }, alice);
    expect(guest.sent).toEqual([{ event_type: 'removed', payload: { message: REMOVED_MESSAGE } }]);
    expect(guest.ticketRefused).toBe(true);
    expect(guest.closed).toBe(true);
    expect(other.ticketRefused).toBe(false);
    expect(other.people()?.people.map((p) => p.id)).toEqual(['alice', 'other']);
    // Its connection's end follows: counted again, but nobody is told twice.
    const told = other.sent.length;
    const before = changes;
    hub.leave(guest);
    expect(changes).toBe(before + 1);
    expect(other.sent.length).toBe(told);
  });

  describe('the pointer of the one in control', () => {
    it('goes to everyone else, from its pointermove and pointerdown only', () => {
      const alice = join('alice', 'control');
      const guest = join('guest', 'watch');
      hub.input(move(10, 20), alice);
      vi.advanceTimersByTime(STEP_MS);
      hub.input({ type: 'pointerdown', x: 30, y: 40, button: 0 }, alice);
      vi.advanceTimersByTime(STEP_MS);
      hub.input({ type: 'pointerup', x: 50, y: 60, button: 0 }, alice);
      hub.input({ type: 'keydown', key: 'a', code: 'KeyA' }, alice);
      vi.advanceTimersByTime(STEP_MS);
      expect(guest.of('pointer')).toEqual([
        { x: 10, y: 20 },
        { x: 30, y: 40 },
      ]);
      expect(alice.of('pointer')).toEqual([]);
    });

    it('is never taken from a viewer not in control', () => {
      const alice = join('alice', 'control');
      const guest = join('guest', 'watch');
      hub.input(move(1, 2), guest);
      vi.advanceTimersByTime(STEP_MS);
      expect(alice.of('pointer')).toEqual([]);
    });

    it(`is sent at most ${POINTER_RATE_HZ} times a second, its last position always`, () => {
      const alice = join('alice', 'control');
      const guest = join('guest', 'watch');
      // Five moves in one interval: the first at once, the last once the interval is over.
      for (let i = 0; i < 5; i++) hub.input(move(i, i), alice);
      expect(guest.of('pointer')).toEqual([{ x: 0, y: 0 }]);
      vi.advanceTimersByTime(STEP_MS);
      expect(guest.of('pointer')).toEqual([
        { x: 0, y: 0 },
        { x: 4, y: 4 },
      ]);
      // A steady stream of moves, one a millisecond for a second: no more than the rate.
      for (let t = 0; t < 1000; t++) {
        hub.input(move(100 + t, 0), alice);
        vi.advanceTimersByTime(1);
      }
      vi.advanceTimersByTime(STEP_MS);
      const sent = guest.of('pointer').slice(2);
      expect(sent.length).toBeLessThanOrEqual(POINTER_RATE_HZ + 1);
      expect(sent.length).toBeGreaterThanOrEqual(POINTER_RATE_HZ - 1);
      expect(sent.at(-1)).toEqual({ x: 1099, y: 0 });
      // After a pause, a move goes at once again.
      vi.advanceTimersByTime(1000);
      hub.input(move(7, 7), alice);
      expect(guest.of('pointer').at(-1)).toEqual({ x: 7, y: 7 });
    });

    it("drops the previous controller's position held back when control changes hands", () => {
      const alice = join('alice', 'control');
      const guest = join('guest', 'watch');
      hub.input(move(1, 1), alice);
      hub.input(move(2, 2), alice);
      hub.request({ event_type: 'controlGive', payload: { to: 'guest' } }, alice);
      vi.advanceTimersByTime(STEP_MS);
      expect(guest.of('pointer')).toEqual([{ x: 1, y: 1 }]);
      hub.input(move(3, 3), guest);
      expect(alice.of('pointer')).toEqual([{ x: 3, y: 3 }]);
      expect(guest.of('pointer')).toEqual([{ x: 1, y: 1 }]);
    });
  });
});
