/**
 * People together in one session (protocol/people.ts) against the real sample application, with real tickets
 * and real WebRTC viewers (node-datachannel): an owner and two guests who came by one watch link. Whose input
 * reaches the application is read from the pointer its scene draws (`Streamer.pointer`), not from the video.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PeoplePayload } from '../../protocol/people.ts';
import { signTicket, type TicketScope } from '../../protocol/viewer-ticket.ts';
import { freeUdpPort } from '../../test-support/ports.ts';
import { secretFile } from '../../test-support/secret-file.ts';
import { answers, until } from '../../test-support/until.ts';
import { makeOffer, openViewer, type Viewer } from '../../test-support/whep-viewer.ts';
import { startStreamer, type Streamer } from '../sample/app.ts';
import { parseLaunch } from '../../protocol/launch.ts';

const SESSION = '3a7e9c10-2b4d-4f6a-8c1e-5d9b0a2f4c6e';
const secret = new Uint8Array(Buffer.alloc(32, 7));

const ticket = async (scope: TicketScope, name?: string) =>
  (await signTicket(secret, SESSION, scope, 120, Date.now(), Date.now(), name)).ticket;

/** Long enough for an event on a data channel to reach the application on a busy machine: what "nothing" waits. */
const SETTLE_MS = 400;

/** A viewer and what it has been told. */
class Person {
  constructor(readonly viewer: Viewer) {}
  /** Its id, as the stream server told it (`you`). */
  get id(): string {
    return this.people()!.you;
  }
  of(type: string): Record<string, unknown>[] {
    return this.viewer.received
      .filter((m) => m.event_type === type)
      .map((m) => m.payload as Record<string, unknown>);
  }
  people(): PeoplePayload | undefined {
    return this.of('people').at(-1) as PeoplePayload | undefined;
  }
  /** Waits until the last `people` it was told satisfies `check`. */
  told(what: string, check: (people: PeoplePayload) => boolean): Promise<PeoplePayload> {
    return until(`${what} to be told`, () => {
      const people = this.people();
      return people && check(people) ? people : undefined;
    });
  }
  send(eventType: string, payload: Record<string, unknown> = {}): void {
    this.viewer.messages.sendMessage(JSON.stringify({ event_type: eventType, payload }));
  }
  move(x: number, y: number): void {
    this.viewer.input.sendMessage(JSON.stringify({ type: 'pointermove', x, y, buttons: 0 }));
  }
  /** Waits for an `error` after the first `before` ones and gives its sentence. */
  async error(before: number): Promise<string> {
    const errors = await until('an error', () => {
      const all = this.of('error');
      return all.length > before ? all : undefined;
    });
    return String(errors[before]?.message);
  }
}

describe('people together in a session of the sample application', () => {
  let streamer: Streamer;
  let base: string;
  let link: string;
  let owner: Person;
  let guest: Person;
  let other: Person;
  const opened: Viewer[] = [];

  const connect = async (token: string) => {
    const viewer = await openViewer(base, 20_000, token);
    opened.push(viewer);
    return new Person(viewer);
  };
  /** Waits until the scene draws the pointer at (x, y). */
  const drawn = (x: number, y: number) =>
    until(`the scene's pointer at ${x},${y}`, () => {
      const at = streamer.pointer();
      return at?.x === x && at.y === y;
    });

  /** The stream's size, as /health tells a holder of a ticket. */
  const size = async () => {
    const res = await fetch(`${base}/health`, {
      headers: { Authorization: `Bearer ${await ticket('watch')}` },
    });
    const { width, height } = (await res.json()) as { width: number; height: number };
    return { width, height };
  };

  beforeAll(async () => {
    const mediaPort = await freeUdpPort();
    const options = parseLaunch(
      ['--signaling-port', '1', '--media-port', String(mediaPort), '--width', '320', '--height', '240'],
      {
        STREAMGATE_VIEWER_SECRET_FILE: secretFile(Buffer.from(secret).toString('base64url')),
        STREAMGATE_MAX_VIEWERS: '4',
      },
    );
    streamer = await startStreamer({ ...options, sessionId: SESSION, signalingPort: 0 });
    base = `http://127.0.0.1:${streamer.signalingPort}`;
    await until('the application to answer /health', () => answers(`${base}/health`));
    owner = await connect(await ticket('control', 'alice'));
    // Two guests who came by the same watch link.
    link = await ticket('watch');
    guest = await connect(link);
    other = await connect(link);
    await other.told('the three', (p) => p.people.length === 3);
    await owner.told('the three', (p) => p.people.length === 3);
  });

  afterAll(async () => {
    for (const viewer of opened) await viewer.close();
    await streamer?.close();
  });

  it('tells each who is here, the owner by its name and in control, the guests numbered', async () => {
    const seen = await guest.told('the three', (p) => p.people.length === 3);
    const people = [
      { id: owner.id, name: 'alice', role: 'owner', asking: false },
      { id: guest.id, name: 'Guest 1', role: 'watcher', asking: false },
      { id: other.id, name: 'Guest 2', role: 'watcher', asking: false },
    ];
    expect(seen).toEqual({ you: guest.id, controller: owner.id, people });
    expect(owner.people()).toEqual({ you: owner.id, controller: owner.id, people });
    expect(other.people()).toEqual({ you: other.id, controller: owner.id, people });
    expect(new Set([owner.id, guest.id, other.id]).size).toBe(3);
  });

  it("moves the scene's pointer for the owner in control, shows it to the guests, and not for a guest", async () => {
    owner.move(11, 22);
    await drawn(11, 22);
    await until("the owner's pointer at the guests", () =>
      [guest, other].every((p) => p.of('pointer').some((at) => at.x === 11 && at.y === 22)),
    );
    expect(owner.of('pointer')).toEqual([]);
    guest.move(200, 150);
    await sleep(SETTLE_MS);
    expect(streamer.pointer()).toEqual({ x: 11, y: 22 });
    // A guest's message that would change the application is refused in words.
    const errors = guest.of('error').length;
    guest.send('openStageRequest', { url: 'omniverse://guest/stage.usd' });
    expect(await guest.error(errors)).toMatch(/not in control/);
  });

  it('lets a guest ask, and refuses what a guest may not do in words, changing nothing', async () => {
    guest.send('controlRequest', { asking: true });
    await owner.told('the guest asking', (p) => p.people[1]?.asking === true);
    await other.told('the guest asking', (p) => p.people[1]?.asking === true);
    for (const [event, payload, words] of [
      ['controlTake', {}, /Only an owner can take/],
      ['controlGive', { to: guest.id }, /Only an owner or the viewer in control/],
      ['viewerRemove', { id: other.id }, /Only an owner can remove/],
    ] as const) {
      const errors = guest.of('error').length;
      guest.send(event, payload);
      expect(await guest.error(errors)).toMatch(words);
    }
    expect(owner.people()?.controller).toBe(owner.id);
  });

  it("hands control to the guest when the owner gives it: the guest's pointer moves the scene's, the owner's no longer", async () => {
    owner.send('controlGive', { to: guest.id });
    for (const person of [owner, guest, other])
      await person.told('the guest in control', (p) => p.controller === guest.id);
    expect(guest.people()?.people[1]).toMatchObject({ id: guest.id, asking: false });
    guest.move(120, 90);
    await drawn(120, 90);
    await until("the guest's pointer at the owner", () =>
      owner.of('pointer').some((at) => at.x === 120 && at.y === 90),
    );
    owner.move(5, 5);
    await sleep(SETTLE_MS);
    expect(streamer.pointer()).toEqual({ x: 120, y: 90 });
  });

  it("takes control back for the owner: the guest's input, a resize too, then changes nothing", async () => {
    owner.send('controlTake');
    for (const person of [owner, guest, other])
      await person.told('the owner in control again', (p) => p.controller === owner.id);
    guest.move(300, 200);
    // A resize comes on the input channel too: the guest's changes nothing, the owner's the stream's size.
    guest.viewer.input.sendMessage(JSON.stringify({ type: 'resize', width: 200, height: 160 }));
    await sleep(SETTLE_MS);
    expect(streamer.pointer()).toEqual({ x: 120, y: 90 });
    expect(await size()).toEqual({ width: 320, height: 240 });
    owner.move(33, 44);
    await drawn(33, 44);
    owner.viewer.input.sendMessage(JSON.stringify({ type: 'resize', width: 240, height: 180 }));
    await until('the stream resized', async () => (await size()).width === 240);
  });

  it('removes a guest for the owner: it is told, its connection ends, its link is refused, the other guest stays', async () => {
    owner.send('viewerRemove', { id: guest.id });
    await until('the removed guest to be told', () => guest.of('removed').length > 0);
    expect(guest.of('removed')).toEqual([{ message: "The session's owner removed you." }]);
    await until('the removed guest to be gone', () => streamer.viewers() === 2);
    const remaining = [
      { id: owner.id, name: 'alice', role: 'owner', asking: false },
      { id: other.id, name: 'Guest 2', role: 'watcher', asking: false },
    ];
    expect(await other.told('the guest gone', (p) => p.people.length === 2)).toEqual({
      you: other.id,
      controller: owner.id,
      people: remaining,
    });
    expect(await owner.told('the guest gone', (p) => p.people.length === 2)).toMatchObject({
      people: remaining,
    });

    // Through the signaling port, the link it came by connects nobody again, and says why.
    const { sdp, pc } = await makeOffer();
    const again = await fetch(`${base}/whep`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/sdp', Authorization: `Bearer ${link}` },
      body: sdp,
    });
    pc.close();
    expect(again.status).toBe(403);
    expect(await again.text()).toMatch(/^The session's owner removed you; this link no longer connects/);
    expect(streamer.viewers()).toBe(2);

    // The guest who came by the same link is still here, told and shown the owner's pointer.
    owner.move(66, 77);
    await drawn(66, 77);
    await until("the owner's pointer at the other guest", () =>
      other.of('pointer').some((at) => at.x === 66 && at.y === 77),
    );
    // Another link still connects.
    const newcomer = await connect(await ticket('watch'));
    expect((await newcomer.told('the newcomer', (p) => p.people.length === 3)).people[2]).toMatchObject({
      name: 'Guest 3',
      role: 'watcher',
    });
  });
});
