/**
 * The people of one session and who of them controls it (protocol/people.ts holds the whole design): a state
 * machine without I/O, so that every rule can be read here and tested without a connection. The stream server
 * (people-hub.ts) feeds it joins, departures and the viewers' requests, and sends what it answers.
 *
 * - A viewer with a control ticket is an **owner** (named by its ticket, "Owner" without a name); one with a
 *   watch ticket a **watcher** ("Guest N", N counting the session's watchers from 1, never reused).
 * - Control: the first owner to connect has it (an owner who connects while nobody has it takes it); when the
 *   one in control leaves, it goes to the owner who connected last, else to nobody.
 * - A watcher may only ask, or stop asking. An owner may give control to anyone, take it, and remove a watcher
 *   (never an owner). The one in control, owner or not, may give it to another.
 * - A request that is not allowed changes nothing and is answered in words.
 */
import {
  CONTROL_GIVE_EVENT,
  CONTROL_REQUEST_EVENT,
  CONTROL_TAKE_EVENT,
  namedViewer,
  VIEWER_REMOVE_EVENT,
  type PeoplePayload,
  type Person,
  type PersonRole,
} from '../../protocol/people.ts';
import type { AppMessage } from '../../protocol/data-channels.ts';
import type { TicketScope } from '../../protocol/viewer-ticket.ts';

/** What a request did. `changed`: everyone must be told (`people`). */
export type RoomOutcome =
  | { kind: 'changed' }
  | { kind: 'unchanged' }
  /** Nothing changed; `message` tells the one who asked why, in words. */
  | { kind: 'refused'; message: string }
  /** Viewer `id` was removed: it is no longer in the room, its connection must end and its ticket be refused. */
  | { kind: 'removed'; id: string };

/** An owner's name when its ticket names nobody (a service without sign-in, or an older one). */
export const OWNER_NAME = 'Owner';

const CHANGED: RoomOutcome = { kind: 'changed' };
const UNCHANGED: RoomOutcome = { kind: 'unchanged' };
const refused = (message: string): RoomOutcome => ({ kind: 'refused', message });

export class Room {
  /** In the order they connected. */
  private readonly people: Person[] = [];
  private controllerId: string | null = null;
  /** Watchers this session has had: the next one is "Guest <guests + 1>". */
  private guests = 0;

  /** The viewer in control, or null. */
  get controller(): string | null {
    return this.controllerId;
  }

  has(id: string): boolean {
    return this.find(id) !== undefined;
  }

  /**
   * Viewer `id` connected, with a ticket of `scope` (the scope it acts with: a control ticket used to watch
   * makes a watcher) that names `name`. Always a change.
   */
  join(id: string, scope: TicketScope, name?: string): Person {
    if (this.has(id)) throw new Error(`Viewer ${id} is in the room already.`);
    const person: Person =
      scope === 'control'
        ? { id, name: name || OWNER_NAME, role: 'owner', asking: false }
        : { id, name: `Guest ${++this.guests}`, role: 'watcher', asking: false };
    this.people.push(person);
    // An owner who connects is in control, unless a watcher was given it: a new owner connection is most often
    // the same person reloading the page or moving to another device, whose old connection lingers for seconds
    // (until its silence ends it), and the one they look at is the newest. A grant to a watcher stands until
    // an owner takes it back on purpose.
    if (person.role === 'owner' && this.roleOf(this.controllerId) !== 'watcher') this.controllerId = id;
    return { ...person };
  }

  /** The role of viewer `id`; undefined for nobody. */
  private roleOf(id: string | null): PersonRole | undefined {
    return id === null ? undefined : this.find(id)?.role;
  }

  /** Viewer `id` is gone; false when it was not here (a viewer removed already). */
  leave(id: string): boolean {
    const index = this.people.findIndex((person) => person.id === id);
    if (index < 0) return false;
    this.people.splice(index, 1);
    if (this.controllerId === id) {
      const owners = this.people.filter((person) => person.role === 'owner');
      this.controllerId = owners.at(-1)?.id ?? null;
    }
    return true;
  }

  /** Handles one of PEOPLE_REQUESTS from viewer `from`. */
  request(from: string, message: AppMessage): RoomOutcome {
    const sender = this.find(from);
    if (!sender) return refused('You are not connected to this session.');
    const { payload } = message;
    switch (message.event_type) {
      case CONTROL_REQUEST_EVENT:
        return this.ask(sender, payload.asking);
      case CONTROL_GIVE_EVENT:
        return this.give(sender, namedViewer(payload, 'to'));
      case CONTROL_TAKE_EVENT:
        return this.take(sender);
      case VIEWER_REMOVE_EVENT:
        return this.remove(sender, namedViewer(payload, 'id'));
      default:
        return refused(`${message.event_type.slice(0, 100)} is not a request about people.`);
    }
  }

  /** `people`'s payload for viewer `you`. */
  payloadFor(you: string): PeoplePayload {
    return { you, controller: this.controllerId, people: this.people.map((person) => ({ ...person })) };
  }

  /** Everyone's `people` payload, in the order they connected. */
  payloads(): PeoplePayload[] {
    return this.people.map((person) => this.payloadFor(person.id));
  }

  private find(id: string): Person | undefined {
    return this.people.find((person) => person.id === id);
  }

  private ask(sender: Person, asking: unknown): RoomOutcome {
    if (typeof asking !== 'boolean') {
      return refused('Say whether you ask for control: {"asking": true}, or false to stop asking.');
    }
    if (sender.role === 'owner') {
      return refused('You own this session: take control rather than ask for it.');
    }
    if (asking && this.controllerId === sender.id) return refused('You are in control already.');
    if (sender.asking === asking) return UNCHANGED;
    sender.asking = asking;
    return CHANGED;
  }

  private give(sender: Person, to: string | null): RoomOutcome {
    if (sender.role !== 'owner' && this.controllerId !== sender.id) {
      return refused('Only an owner or the viewer in control can give control; ask for it instead.');
    }
    if (to === null) return refused('Say whom to give control to: {"to": "<viewer id>"}.');
    const target = this.find(to);
    if (!target) return refused('That viewer is no longer here.');
    if (this.controllerId === to) return UNCHANGED;
    this.controllerId = to;
    target.asking = false;
    return CHANGED;
  }

  private take(sender: Person): RoomOutcome {
    if (sender.role !== 'owner') return refused('Only an owner can take control; ask for it instead.');
    if (this.controllerId === sender.id) return UNCHANGED;
    this.controllerId = sender.id;
    return CHANGED;
  }

  private remove(sender: Person, id: string | null): RoomOutcome {
    if (sender.role !== 'owner') return refused('Only an owner can remove a viewer.');
    if (id === null) return refused('Say whom to remove: {"id": "<viewer id>"}.');
    const target = this.find(id);
    if (!target) return refused('That viewer is no longer here.');
    if (target.role === 'owner') return refused('An owner cannot be removed; only guests can.');
    this.leave(id);
    return { kind: 'removed', id };
  }
}
