/**
 * People together in one session (protocol/people.ts), as one player sees them: who is here, whether this
 * viewer is in control, where the pointer of the one in control is, and whether an owner removed this viewer.
 * The stream server sends it all on `messages`; the player reads it here and asks with `request`.
 */
import {
  CONTROL_GIVE_EVENT,
  CONTROL_REQUEST_EVENT,
  CONTROL_TAKE_EVENT,
  PEOPLE_EVENT,
  POINTER_EVENT,
  REMOVED_EVENT,
  VIEWER_REMOVE_EVENT,
  parsePeople,
  parsePointer,
  type PeoplePayload,
  type PointerPayload,
} from '../../../protocol/people';
import type { AppMessage } from '../data-channels/app-messages';

export type { PeoplePayload, Person, PersonRole, PointerPayload } from '../../../protocol/people';

/** What the player does with what it reads. */
export interface PeopleHandlers {
  /** Everyone connected; null once the connection that said so has ended. */
  people(payload: PeoplePayload | null): void;
  /** The pointer of someone else in control; null when there is none to show. */
  pointer(payload: PointerPayload | null): void;
  /** This viewer got control (true) or lost it (false). */
  control(inControl: boolean): void;
  /** An owner removed this viewer. */
  removed(): void;
}

/** One of the requests a viewer sends about people, as `[event_type, payload]`. */
export type PeopleRequest = readonly [string, Record<string, unknown>];

/** The requests, built once for the player's methods. */
export const request = {
  ask: (asking: boolean): PeopleRequest => [CONTROL_REQUEST_EVENT, { asking }],
  give: (to: string): PeopleRequest => [CONTROL_GIVE_EVENT, { to }],
  take: (): PeopleRequest => [CONTROL_TAKE_EVENT, {}],
  remove: (id: string): PeopleRequest => [VIEWER_REMOVE_EVENT, { id }],
};

/** Control and people over the connections of one player. */
export class PeopleState {
  private controlling: boolean;
  private told = false;
  private pointing = false;

  /**
   * `owner`: this viewer connects with a control ticket. Until the stream server says otherwise (an
   * application that predates people never does), an owner is in control and a watcher is not.
   */
  constructor(
    private readonly owner: boolean,
    private readonly handlers: PeopleHandlers,
  ) {
    this.controlling = owner;
  }

  /** Whether this viewer's input reaches the program now. */
  get inControl(): boolean {
    return this.controlling;
  }

  /** Reads one message of `messages`; false when it is not about people (the application's own). */
  read(message: AppMessage): boolean {
    switch (message.event_type) {
      case PEOPLE_EVENT: {
        const people = parsePeople(message.payload);
        if (!people) return true;
        this.told = true;
        this.setControl(people.controller === people.you);
        // Nobody else in control: there is no pointer of theirs to show any more.
        if (people.controller === null || people.controller === people.you) this.hidePointer();
        this.handlers.people(people);
        return true;
      }
      case POINTER_EVENT: {
        const pointer = parsePointer(message.payload);
        // One that reaches the one in control crossed a change of control on the way: it is someone else's no more.
        if (pointer && !this.controlling) {
          this.pointing = true;
          this.handlers.pointer(pointer);
        }
        return true;
      }
      case REMOVED_EVENT:
        this.handlers.removed();
        return true;
      default:
        return false;
    }
  }

  /**
   * The connection ended: what it said no longer holds. A watcher's control was granted for that connection
   * only, so the next one starts as the first did.
   */
  reset(): void {
    this.hidePointer();
    this.setControl(this.owner);
    if (this.told) {
      this.told = false;
      this.handlers.people(null);
    }
  }

  private setControl(inControl: boolean) {
    if (inControl === this.controlling) return;
    this.controlling = inControl;
    this.handlers.control(inControl);
  }

  private hidePointer() {
    if (!this.pointing) return;
    this.pointing = false;
    this.handlers.pointer(null);
  }
}
