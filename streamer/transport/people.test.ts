import { describe, expect, it } from 'vitest';
import { parsePeople, type PersonRole } from '../../protocol/people.ts';
import { OWNER_NAME, Room, type RoomOutcome } from './people.ts';

const ask = (asking: unknown) => ({ event_type: 'controlRequest', payload: { asking } });
const give = (to: unknown) => ({ event_type: 'controlGive', payload: { to } });
const take = { event_type: 'controlTake', payload: {} };
const remove = (id: unknown) => ({ event_type: 'viewerRemove', payload: { id } });

/** A room where `owner` (Alice) connected first, then the watcher `guest` (Guest 1). */
function aliceAndGuest(): Room {
  const room = new Room();
  room.join('owner', 'control', 'alice');
  room.join('guest', 'watch');
  return room;
}

const roles = (room: Room): [string, PersonRole, boolean][] =>
  room.payloadFor('x').people.map((p) => [p.name, p.role, p.asking]);

/** A refusal that changed nothing: the room's payload is the same before and after. */
function expectRefused(room: Room, from: string, message: object, words: RegExp): void {
  const before = room.payloads();
  const outcome = room.request(from, message as never);
  expect(outcome).toEqual({ kind: 'refused', message: expect.stringMatching(words) });
  expect(room.payloads()).toEqual(before);
}

describe('joining', () => {
  it('makes a control ticket an owner named by it, "Owner" when it names nobody', () => {
    const room = new Room();
    expect(room.join('a', 'control', 'alice')).toEqual({
      id: 'a',
      name: 'alice',
      role: 'owner',
      asking: false,
    });
    expect(room.join('b', 'control')).toMatchObject({ name: OWNER_NAME, role: 'owner' });
    expect(room.join('c', 'control', '')).toMatchObject({ name: 'Owner' });
  });

  it('numbers watchers from 1 for the whole session, never reusing a number', () => {
    const room = new Room();
    expect(room.join('w1', 'watch').name).toBe('Guest 1');
    room.join('o', 'control', 'alice');
    expect(room.join('w2', 'watch').name).toBe('Guest 2');
    room.leave('w1');
    room.leave('w2');
    expect(room.join('w3', 'watch').name).toBe('Guest 3');
  });

  it('makes a watcher of a control ticket used to watch, without its name', () => {
    const room = new Room();
    expect(room.join('a', 'watch', 'alice')).toMatchObject({ name: 'Guest 1', role: 'watcher' });
    expect(room.controller).toBeNull();
  });

  it('gives control to an owner as it connects, never to a watcher, and keeps it there as watchers join', () => {
    const room = new Room();
    room.join('w', 'watch');
    expect(room.controller).toBeNull();
    room.join('a', 'control', 'alice');
    expect(room.controller).toBe('a');
    room.join('w2', 'watch');
    expect(room.controller).toBe('a');
    // A second owner connection (the page reloaded, another device) is the one the person now looks at.
    room.join('b', 'control', 'alice');
    expect(room.controller).toBe('b');
  });

  it('leaves control with a watcher it was given to when another owner connects', () => {
    const room = aliceAndGuest();
    room.request('owner', give('guest') as never);
    room.join('again', 'control', 'alice');
    expect(room.controller).toBe('guest');
  });

  it('lists everyone in the order they connected', () => {
    const room = aliceAndGuest();
    room.join('bob', 'control', 'bob');
    expect(roles(room)).toEqual([
      ['alice', 'owner', false],
      ['Guest 1', 'watcher', false],
      ['bob', 'owner', false],
    ]);
  });

  it('refuses the same viewer twice', () => {
    const room = aliceAndGuest();
    expect(() => room.join('guest', 'watch')).toThrow(/already/);
  });
});

describe('leaving', () => {
  it('hands control from the one who leaves to the owner who connected last', () => {
    const room = new Room();
    room.join('a', 'control', 'alice');
    room.join('b', 'control', 'bob');
    room.join('c', 'control', 'carol');
    room.join('w', 'watch');
    expect(room.leave('a')).toBe(true);
    expect(room.controller).toBe('c');
  });

  it('hands it to nobody when only watchers are left', () => {
    const room = aliceAndGuest();
    room.leave('owner');
    expect(room.controller).toBeNull();
  });

  it('hands it back to an owner when a watcher in control leaves', () => {
    const room = aliceAndGuest();
    room.join('bob', 'control', 'bob');
    room.request('owner', give('guest'));
    room.leave('guest');
    expect(room.controller).toBe('bob');
  });

  it('leaves control where it is when someone else leaves', () => {
    const room = aliceAndGuest();
    room.join('bob', 'control', 'bob');
    room.leave('bob');
    room.leave('guest');
    expect(room.controller).toBe('owner');
  });

  it('gives control to an owner who connects while nobody has it', () => {
    const room = aliceAndGuest();
    room.leave('owner');
    room.join('bob', 'control', 'bob');
    expect(room.controller).toBe('bob');
  });

  it('says when the viewer was not here (removed already)', () => {
    const room = aliceAndGuest();
    expect(room.leave('nobody')).toBe(false);
    expect(room.leave('guest')).toBe(true);
    expect(room.leave('guest')).toBe(false);
  });
});

describe('asking for control', () => {
  it('marks a watcher as asking, and no longer when it stops', () => {
    const room = aliceAndGuest();
    expect(room.request('guest', ask(true))).toEqual({ kind: 'changed' });
    expect(room.payloadFor('guest').people[1]).toMatchObject({ id: 'guest', asking: true });
    expect(room.request('guest', ask(true))).toEqual({ kind: 'unchanged' });
    expect(room.request('guest', ask(false))).toEqual({ kind: 'changed' });
    expect(room.payloadFor('guest').people[1]?.asking).toBe(false);
    expect(room.request('guest', ask(false))).toEqual({ kind: 'unchanged' });
  });

  it('never gives control by itself', () => {
    const room = aliceAndGuest();
    room.request('guest', ask(true));
    expect(room.controller).toBe('owner');
  });

  it('is refused to an owner, who takes instead', () => {
    expectRefused(aliceAndGuest(), 'owner', ask(true), /take control/);
  });

  it('is refused to a watcher in control already', () => {
    const room = aliceAndGuest();
    room.request('owner', give('guest'));
    expectRefused(room, 'guest', ask(true), /in control already/);
  });

  it.each([undefined, 'yes', 1, null])(
    'is refused when `asking` is %s rather than true or false',
    (asking) => {
      expectRefused(aliceAndGuest(), 'guest', ask(asking), /asking/);
    },
  );
});

describe('giving control', () => {
  it('lets an owner give it to a watcher, who no longer asks', () => {
    const room = aliceAndGuest();
    room.request('guest', ask(true));
    expect(room.request('owner', give('guest'))).toEqual({ kind: 'changed' });
    expect(room.controller).toBe('guest');
    expect(room.payloadFor('owner').people[1]?.asking).toBe(false);
  });

  it('lets an owner not in control give it, and to another owner', () => {
    const room = aliceAndGuest();
    room.join('bob', 'control', 'bob');
    room.request('owner', give('guest'));
    expect(room.request('bob', give('owner'))).toEqual({ kind: 'changed' });
    expect(room.controller).toBe('owner');
  });

  it('lets a watcher in control give it on, to another watcher', () => {
    const room = aliceAndGuest();
    room.join('guest2', 'watch');
    room.request('owner', give('guest'));
    expect(room.request('guest', give('guest2'))).toEqual({ kind: 'changed' });
    expect(room.controller).toBe('guest2');
  });

  it('lets a watcher in control give it back to an owner', () => {
    const room = aliceAndGuest();
    room.request('owner', give('guest'));
    expect(room.request('guest', give('owner'))).toEqual({ kind: 'changed' });
    expect(room.controller).toBe('owner');
  });

  it('is refused to a watcher not in control, even to give it to themselves', () => {
    const room = aliceAndGuest();
    room.join('guest2', 'watch');
    expectRefused(room, 'guest', give('guest'), /ask for it/);
    expectRefused(room, 'guest', give('guest2'), /Only an owner or the viewer in control/);
  });

  it('is refused to a watcher that had control once but no longer has it', () => {
    const room = aliceAndGuest();
    room.join('guest2', 'watch');
    room.request('owner', give('guest'));
    room.request('owner', take);
    expectRefused(room, 'guest', give('guest2'), /Only an owner/);
  });

  it('changes nothing when given to the one in control', () => {
    const room = aliceAndGuest();
    expect(room.request('owner', give('owner'))).toEqual({ kind: 'unchanged' });
  });

  it.each([
    ['nobody', undefined, /Say whom/],
    ['a malformed id', 'not an id!', /Say whom/],
    ['a viewer who left', 'gone', /no longer here/],
  ])('is refused when it names %s', (_what, to, words) => {
    expectRefused(aliceAndGuest(), 'owner', give(to), words);
  });
});

describe('taking control', () => {
  it('lets an owner take it from a watcher', () => {
    const room = aliceAndGuest();
    room.request('owner', give('guest'));
    expect(room.request('owner', take)).toEqual({ kind: 'changed' });
    expect(room.controller).toBe('owner');
  });

  it('lets an owner take it from another owner', () => {
    const room = aliceAndGuest();
    room.join('bob', 'control', 'bob');
    expect(room.request('owner', take)).toEqual({ kind: 'changed' });
    expect(room.controller).toBe('owner');
    expect(room.request('bob', take)).toEqual({ kind: 'changed' });
    expect(room.controller).toBe('bob');
  });

  it('changes nothing for the owner in control', () => {
    expect(aliceAndGuest().request('owner', take)).toEqual({ kind: 'unchanged' });
  });

  it('is refused to a watcher, in control or not', () => {
    const room = aliceAndGuest();
    expectRefused(room, 'guest', take, /Only an owner can take/);
    room.request('owner', give('guest'));
    expectRefused(room, 'guest', take, /Only an owner can take/);
  });
});

describe('removing a viewer', () => {
  it('lets an owner remove a watcher, who is then gone from the room', () => {
    const room = aliceAndGuest();
    expect(room.request('owner', remove('guest'))).toEqual({ kind: 'removed', id: 'guest' });
    expect(room.has('guest')).toBe(false);
    expect(roles(room)).toEqual([['alice', 'owner', false]]);
    // Its connection's end, which follows, is no second change.
    expect(room.leave('guest')).toBe(false);
  });

  it('hands control back when the watcher removed had it', () => {
    const room = aliceAndGuest();
    room.request('owner', give('guest'));
    room.request('owner', remove('guest'));
    expect(room.controller).toBe('owner');
  });

  it('lets an owner not in control remove a watcher', () => {
    const room = aliceAndGuest();
    room.join('bob', 'control', 'bob');
    expect(room.request('bob', remove('guest'))).toMatchObject({ kind: 'removed' });
  });

  it('never removes an owner, not even oneself', () => {
    const room = aliceAndGuest();
    room.join('bob', 'control', 'bob');
    expectRefused(room, 'owner', remove('bob'), /owner cannot be removed/);
    expectRefused(room, 'owner', remove('owner'), /owner cannot be removed/);
  });

  it('is refused to a watcher, even the one in control', () => {
    const room = aliceAndGuest();
    room.join('guest2', 'watch');
    expectRefused(room, 'guest', remove('guest2'), /Only an owner can remove/);
    room.request('owner', give('guest'));
    expectRefused(room, 'guest', remove('guest2'), /Only an owner can remove/);
  });

  it.each([
    ['nobody', undefined, /Say whom/],
    ['a viewer who left', 'gone', /no longer here/],
  ])('is refused when it names %s', (_what, id, words) => {
    expectRefused(aliceAndGuest(), 'owner', remove(id), words);
  });
});

describe('requests', () => {
  it('are refused from a viewer not in the room', () => {
    expectRefused(aliceAndGuest(), 'stranger', take, /not connected/);
  });

  it('are refused when they are not about people', () => {
    const outcome: RoomOutcome = aliceAndGuest().request('owner', {
      event_type: 'openStageRequest',
      payload: {},
    });
    expect(outcome).toMatchObject({ kind: 'refused' });
  });
});

describe("the people's payloads", () => {
  it('differ only in `you`, and read back as the player reads them', () => {
    const room = aliceAndGuest();
    room.request('guest', ask(true));
    const [alice, guest] = room.payloads();
    expect(alice).toEqual({
      you: 'owner',
      controller: 'owner',
      people: [
        { id: 'owner', name: 'alice', role: 'owner', asking: false },
        { id: 'guest', name: 'Guest 1', role: 'watcher', asking: true },
      ],
    });
    expect(guest).toEqual({ ...alice, you: 'guest' });
    expect(parsePeople(JSON.parse(JSON.stringify(guest)) as Record<string, unknown>)).toEqual(guest);
  });

  it('say that nobody is in control with null', () => {
    const room = new Room();
    room.join('w', 'watch');
    expect(room.payloadFor('w').controller).toBeNull();
  });

  it('are copies: changing one changes nothing in the room', () => {
    const room = aliceAndGuest();
    const payload = room.payloadFor('owner');
    (payload.people[1] as { asking: boolean }).asking = true;
    expect(room.payloadFor('owner').people[1]?.asking).toBe(false);
  });
});
