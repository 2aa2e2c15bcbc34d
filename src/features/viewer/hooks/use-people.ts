/**
 * People together in the viewer (protocol/people.ts): who is here and who is in control, as the player reads it
 * from the stream server, and the requests a person makes (ask for control, give it, take it, remove a
 * watcher). The page creates the player; it hands it to `link.listen` in the same effect, whose cleanup stops
 * listening. The pointer of the one in control comes up to 30 times a second: it has a store of its own, so
 * that only what draws it renders that often, never the page.
 */
import { useState, useSyncExternalStore } from 'react';
import type { PeoplePayload, Person, Player, PointerPayload } from '../../../player';

/** What the page renders from: who is here (undefined until the application says, or if it never does). */
export interface PeopleSnapshot {
  payload: PeoplePayload | undefined;
  /** Whether this viewer's keys and pointer reach the program. */
  inControl: boolean;
}

/** A store fed by one player at a time, with the player's requests about people. */
export class PeopleLink {
  private player: Player | undefined;
  private current: PeopleSnapshot;
  private pointerNow: PointerPayload | null = null;
  private gaveTo: string | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly pointerListeners = new Set<() => void>();

  /** `inControl`: what to say before any player does (an owner's viewer is in control until told otherwise). */
  constructor(inControl: boolean) {
    this.current = { payload: undefined, inControl };
  }

  /** Follows `player` until the function it returns is called. */
  readonly listen = (player: Player): (() => void) => {
    this.player = player;
    this.set({ payload: undefined, inControl: player.inControl });
    const offs = [
      player.addEventListener('people', (payload) =>
        this.set({ ...this.current, payload: payload ?? undefined }),
      ),
      player.addEventListener('control', (inControl) => this.set({ ...this.current, inControl })),
      player.addEventListener('pointer', (pointer) => this.setPointer(pointer)),
    ];
    return () => {
      for (const off of offs) off();
      if (this.player === player) this.player = undefined;
      this.set({ ...this.current, payload: undefined });
      this.setPointer(null);
    };
  };

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly snapshot = (): PeopleSnapshot => this.current;

  readonly subscribePointer = (listener: () => void): (() => void) => {
    this.pointerListeners.add(listener);
    return () => this.pointerListeners.delete(listener);
  };

  /** Where the pointer of someone else in control is, in stream pixels; null when there is none to show. */
  readonly pointer = (): PointerPayload | null => this.pointerNow;

  /** Whom this viewer last gave control to: its own giving is no news to announce to it. */
  get given(): string | undefined {
    return this.gaveTo;
  }

  /** The requests; each is false when it could not be sent (not connected). */
  readonly ask = (asking: boolean): boolean => this.player?.askControl(asking) ?? false;
  readonly give = (id: string): boolean => {
    const sent = this.player?.giveControl(id) ?? false;
    if (sent) this.gaveTo = id;
    return sent;
  };
  readonly take = (): boolean => this.player?.takeControl() ?? false;
  readonly remove = (id: string): boolean => this.player?.removeViewer(id) ?? false;

  private set(next: PeopleSnapshot) {
    if (next.payload === this.current.payload && next.inControl === this.current.inControl) return;
    this.current = next;
    for (const listener of this.listeners) listener();
  }

  private setPointer(pointer: PointerPayload | null) {
    if (pointer === this.pointerNow) return;
    this.pointerNow = pointer;
    for (const listener of this.pointerListeners) listener();
  }
}

/** The viewer's people: what to render, and `link` to hand the player to and to ask through. */
export interface People extends PeopleSnapshot {
  link: PeopleLink;
}

/** One link for the page's life; `watchOnly` says who is in control before a player says so. */
export function usePeople(watchOnly: boolean): People {
  const [link] = useState(() => new PeopleLink(!watchOnly));
  const snapshot = useSyncExternalStore(link.subscribe, link.snapshot);
  return { ...snapshot, link };
}

/** What a person may do and see, read once from a `people` payload. */
export interface PeopleRoles {
  me: Person | undefined;
  controller: Person | undefined;
  /** An owner: gives, takes and removes. */
  owner: boolean;
  /** This viewer is in control. */
  controlling: boolean;
  /** Gives control to another: an owner, or whoever has it. */
  canGive: boolean;
}

export function peopleRoles(payload: PeoplePayload): PeopleRoles {
  const me = payload.people.find((p) => p.id === payload.you);
  const controller = payload.people.find((p) => p.id === payload.controller);
  const owner = me?.role === 'owner';
  const controlling = payload.controller === payload.you;
  return { me, controller, owner, controlling, canGive: owner || controlling };
}
