/**
 * The people of a session at work (protocol/people.ts): the room's rules (people.ts) applied to the viewers the
 * stream server has, and what they are told. After each change everyone hears who is here (`people`); a
 * refused request is answered to its sender alone (`error`); a removed viewer hears so (`removed`), its
 * connection ends and its ticket connects nobody again; the pointer of the one in control goes to the others
 * (`pointer`, pointer-relay.ts). The stream server asks it who is in control, which decides whose input and
 * messages reach the application.
 */
import type { AppMessage, InputEvent } from '../../protocol/data-channels.ts';
import { PEOPLE_EVENT, POINTER_EVENT, REMOVED_EVENT, type PointerPayload } from '../../protocol/people.ts';
import type { TicketScope } from '../../protocol/viewer-ticket.ts';
import { Room } from './people.ts';
import { PointerRelay } from './pointer-relay.ts';

/** What the hub needs of a viewer. */
export interface Member {
  readonly id: string;
  sendMessage(message: AppMessage): void;
  /** Ends its connection; the stream server then calls `leave`. */
  close(): void;
}

export interface PeopleHubOptions<V extends Member> {
  /** Someone joined or left, or control changed hands: the stream server counts its viewers again. */
  onChange(): void;
  /** Control changed hands (to nobody: null). */
  onControl?(controller: V | null): void;
  /** How often, at most, the controller's pointer is sent (POINTER_RATE_HZ). */
  pointerRateHz?: number;
  log?: (line: string) => void;
}

/** What a removed viewer is told before its connection ends. */
export const REMOVED_MESSAGE = "The session's owner removed you.";

interface Joined<V> {
  viewer: V;
  /** Refuses the ticket the viewer came with from now on (viewer-access.ts). */
  refuseTicket: () => void;
}

export class PeopleHub<V extends Member> {
  private readonly room = new Room();
  /** Every viewer joined and not yet gone, a removed one too until its connection has ended. */
  private readonly members = new Map<string, Joined<V>>();
  private readonly pointer: PointerRelay;
  /** The controller the last change left, to see whether the next one changes it. */
  private controllerWas: string | null = null;

  constructor(private readonly options: PeopleHubOptions<V>) {
    this.pointer = new PointerRelay((at) => this.sendPointer(at), options.pointerRateHz);
  }

  /** The viewer in control, or null. */
  controller(): V | null {
    const id = this.room.controller;
    return id === null ? null : (this.members.get(id)?.viewer ?? null);
  }

  /** Whether `viewer`'s input and messages reach the application. */
  controls(viewer: Member): boolean {
    return this.room.controller === viewer.id;
  }

  /** `viewer` connected with a ticket of `scope` naming `name`; `refuseTicket` bars that ticket (removal). */
  join(viewer: V, scope: TicketScope, name: string | undefined, refuseTicket: () => void): void {
    this.room.join(viewer.id, scope, name);
    this.members.set(viewer.id, { viewer, refuseTicket });
    this.changed(true);
  }

  /** `viewer`'s connection ended, whatever the reason. */
  leave(viewer: Member): void {
    if (!this.members.delete(viewer.id)) return;
    this.changed(this.room.leave(viewer.id));
  }

  /** `viewer`'s `messages` channel opened: it learns who is here at once. */
  greet(viewer: Member): void {
    if (this.room.has(viewer.id)) viewer.sendMessage(this.peopleFor(viewer.id));
  }

  /** One of PEOPLE_REQUESTS from `viewer`, whoever it is. */
  request(message: AppMessage, viewer: Member): void {
    const outcome = this.room.request(viewer.id, message);
    switch (outcome.kind) {
      case 'refused':
        viewer.sendMessage({ event_type: 'error', payload: { message: outcome.message } });
        return;
      case 'unchanged':
        return;
      case 'changed':
        this.changed(true);
        return;
      case 'removed': {
        const removed = this.members.get(outcome.id);
        this.options.log?.(`viewer ${outcome.id} was removed by ${viewer.id}`);
        this.changed(true);
        if (!removed) return;
        removed.refuseTicket();
        removed.viewer.sendMessage({ event_type: REMOVED_EVENT, payload: { message: REMOVED_MESSAGE } });
        removed.viewer.close();
        return;
      }
    }
  }

  /** An `input` event of the viewer in control: its pointer is shown to the others. */
  input(event: InputEvent, viewer: Member): void {
    if (!this.controls(viewer)) return;
    if (event.type === 'pointermove' || event.type === 'pointerdown') this.pointer.move(event.x, event.y);
  }

  /** Stops the pointer's timer; the viewers are closed by the stream server. */
  close(): void {
    this.pointer.reset();
  }

  /** After a change: everyone is told who is here when the room changed, and the stream server counts. */
  private changed(roomChanged: boolean): void {
    const controller = this.room.controller;
    const handedOver = controller !== this.controllerWas;
    this.controllerWas = controller;
    // A position held back was the previous controller's.
    if (handedOver) this.pointer.reset();
    if (roomChanged) {
      for (const { viewer } of this.members.values())
        if (this.room.has(viewer.id)) viewer.sendMessage(this.peopleFor(viewer.id));
    }
    this.options.onChange();
    if (handedOver) this.options.onControl?.(this.controller());
  }

  private peopleFor(id: string): AppMessage {
    return { event_type: PEOPLE_EVENT, payload: { ...this.room.payloadFor(id) } };
  }

  private sendPointer(at: PointerPayload): void {
    const message: AppMessage = { event_type: POINTER_EVENT, payload: { ...at } };
    const controller = this.room.controller;
    for (const { viewer } of this.members.values())
      if (viewer.id !== controller && this.room.has(viewer.id)) viewer.sendMessage(message);
  }
}
