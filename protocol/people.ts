/**
 * People together in one session (issue: working together): who is connected, and who controls. Carried on
 * the `messages` channel (protocol/data-channels.ts) between the player and the stream server that both
 * applications share (streamer/transport), never reaching the application itself. Plain TypeScript, neither
 * DOM nor Node.
 *
 * - Each viewer is a person: an **owner** connected with a control ticket (the session's owner, or an admin,
 *   named by the ticket's `name`), or a **watcher** connected with a watch ticket (a watch link: "Guest 2").
 * - One viewer at a time is **in control**: its input (pointer, keys, wheel, touch, resize) and its
 *   clipboard reach the program; everyone else's are ignored. An owner who connects has it (a reload or a
 *   second device of the same person: the newest connection is the one they look at), unless it was given to
 *   a watcher; when the one in control leaves, it returns to the owner who connected last, or to nobody.
 * - A watcher **asks** (`controlRequest`); an owner, or whoever is in control, **gives** it to anyone
 *   connected (`controlGive`); an owner **takes** it back whenever they like (`controlTake`). A watcher never
 *   gets control any other way: a watch ticket is lifted only by that grant, and only for that connection.
 * - An owner **removes** a watcher (`viewerRemove`): its connection ends, and the ticket it came with no
 *   longer connects anyone (others who came by the same link stay until they leave).
 * - The stream server tells every viewer who is here after each change (`people`), and while someone is in
 *   control, where their pointer is (`pointer`) to everyone else, so all see the same pointer.
 */

/** Server to viewer: everyone connected, after each change. */
export const PEOPLE_EVENT = 'people';
/** Server to viewer: where the pointer of the one in control is, for everyone else (at most POINTER_RATE_HZ). */
export const POINTER_EVENT = 'pointer';
/** Server to viewer: this viewer was removed by an owner; its connection ends right after. */
export const REMOVED_EVENT = 'removed';
/** Viewer to server: a watcher asks for control (`{asking: true}`), or no longer does (`{asking: false}`). */
export const CONTROL_REQUEST_EVENT = 'controlRequest';
/** Viewer to server: an owner or the one in control gives control to viewer `to`. */
export const CONTROL_GIVE_EVENT = 'controlGive';
/** Viewer to server: an owner takes control. */
export const CONTROL_TAKE_EVENT = 'controlTake';
/** Viewer to server: an owner removes viewer `id` (a watcher). */
export const VIEWER_REMOVE_EVENT = 'viewerRemove';

/** The events a viewer sends about people: handled by the stream server, any viewer may send them. */
export const PEOPLE_REQUESTS: ReadonlySet<string> = new Set([
  CONTROL_REQUEST_EVENT,
  CONTROL_GIVE_EVENT,
  CONTROL_TAKE_EVENT,
  VIEWER_REMOVE_EVENT,
]);

/** How often, at most, the pointer of the one in control is sent to the others. */
export const POINTER_RATE_HZ = 30;

export type PersonRole = 'owner' | 'watcher';

/** One viewer, as everyone sees it. */
export interface Person {
  /** The viewer's id (its WHEP resource's). */
  id: string;
  /** The ticket's name for an owner ("Owner" without one); "Guest N" for the N-th watcher of the session. */
  name: string;
  role: PersonRole;
  /** A watcher that asked for control and was not given it yet. */
  asking: boolean;
}

/** `people`'s payload. */
export interface PeoplePayload {
  /** The viewer this message is sent to. */
  you: string;
  /** The viewer in control, or null when nobody is. */
  controller: string | null;
  /** In the order they connected. */
  people: Person[];
}

/** `pointer`'s payload: stream pixels, as `input` events carry them. */
export interface PointerPayload {
  x: number;
  y: number;
}

type Json = Record<string, unknown>;

const isId = (v: unknown): v is string => typeof v === 'string' && /^[A-Za-z0-9-]{1,64}$/.test(v);

/** `people`'s payload as the player reads it; null when it is not one. */
export function parsePeople(payload: Json): PeoplePayload | null {
  const { you, controller, people } = payload;
  if (!isId(you) || !(controller === null || isId(controller)) || !Array.isArray(people)) return null;
  const out: Person[] = [];
  for (const p of people as unknown[]) {
    if (!p || typeof p !== 'object') return null;
    const { id, name, role, asking } = p as Json;
    if (!isId(id) || typeof name !== 'string' || (role !== 'owner' && role !== 'watcher')) return null;
    out.push({ id, name, role, asking: asking === true });
  }
  return { you, controller, people: out };
}

/** `pointer`'s payload; null when it is not one. */
export function parsePointer(payload: Json): PointerPayload | null {
  const { x, y } = payload;
  return typeof x === 'number' && Number.isFinite(x) && typeof y === 'number' && Number.isFinite(y)
    ? { x, y }
    : null;
}

/** The viewer id a `controlGive` (`to`) or `viewerRemove` (`id`) names; null when malformed. */
export function namedViewer(payload: Json, field: 'to' | 'id'): string | null {
  const v = payload[field];
  return isId(v) ? v : null;
}

/** Who an application's event is for: every viewer, the one in control, or the session's owners. */
export type Audience = 'all' | 'control' | 'owners';
