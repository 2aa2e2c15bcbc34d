/**
 * The two data channels between a player and an application (CONTRACT 12), defined once for both sides:
 * the player (src/player) sends `input` events and reads `messages`; the applications (streamer/) read
 * both with the parsers below. Plain TypeScript, neither DOM nor Node: it runs in the browser and in Node.
 *
 * - `input`: JSON events from the player, coordinates in stream pixels.
 * - `messages`: application events `{event_type, payload}` both ways (Kit's convention).
 *
 * Anything malformed or out of bounds (INPUT_BOUNDS) parses to null and is ignored, never thrown.
 */

/** Names of the two channels the offer opens, in this order. */
export const INPUT_CHANNEL = 'input';
export const MESSAGES_CHANNEL = 'messages';

/** The longest message an application reads (longer ones are ignored). */
export const MAX_MESSAGE_LENGTH = 64 * 1024;

/** One touch point of a touch event. */
export interface TouchPoint {
  id: number;
  x: number;
  y: number;
}

/**
 * An event of the `input` channel. The player numbers each as it sends it (`seq`), and the application
 * echoes the number; any event may carry it.
 */
export type InputEvent = { seq?: number } & (
  | { type: 'pointermove'; x: number; y: number; buttons: number }
  | { type: 'pointerdown' | 'pointerup'; x: number; y: number; button: number }
  | { type: 'wheel'; x: number; y: number; deltaX: number; deltaY: number }
  | { type: 'keydown' | 'keyup'; key: string; code: string }
  | { type: 'touchstart' | 'touchmove' | 'touchend'; touches: TouchPoint[] }
  | { type: 'resize'; width: number; height: number }
);

/** An event of the `messages` channel, both ways. */
export interface AppMessage {
  event_type: string;
  payload: Record<string, unknown>;
}

type Json = Record<string, unknown>;

/** The JSON object a text message holds; null for binary messages, texts over `maxLength` and other JSON. */
function object(data: unknown, maxLength: number): Json | null {
  if (typeof data !== 'string') return null;
  if (data.length > maxLength) return null;
  try {
    const value: unknown = JSON.parse(data);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;
  } catch {
    return null;
  }
}

/**
 * Bounds of every field of an `input` event. Each number must be finite and within its bound, each string
 * short: an event outside them is dropped whole (parseInput gives null, the application counts it), except
 * the wheel's deltas, which are clamped, since a fast flick of a real wheel may well exceed them.
 */
export const INPUT_BOUNDS = {
  /** |x| and |y| in stream pixels: well past any stream (a drag may leave the picture), far below trouble. */
  coordinate: 100_000,
  /** Browser buttons 0 (left) to 4 (forward). */
  button: 4,
  /** The `buttons` bit mask of those five buttons. */
  buttons: 0b11111,
  /** Pixels of wheel movement per event and axis: 10 clicks of 100 pixels (a real wheel's notch is ~100). */
  wheelDelta: 1_000,
  /** Touch points of one event (more fingers than a hand has are an attack, not a gesture). */
  touches: 10,
  /** The largest width or height a `resize` may ask for (an application then clamps it to its maximum). */
  size: 16_384,
  /** UTF-16 units of `key` and `code`: the longest key name or grapheme cluster of a real keyboard is ~20. */
  text: 32,
} as const;

type Check<T> = (v: unknown) => v is T;
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const coordinate = (v: unknown): v is number => finite(v) && Math.abs(v) <= INPUT_BOUNDS.coordinate;
const integerIn =
  (min: number, max: number): Check<number> =>
  (v: unknown): v is number =>
    Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;
const button = integerIn(0, INPUT_BOUNDS.button);
const buttons = integerIn(0, INPUT_BOUNDS.buttons);
const dimension = integerIn(1, INPUT_BOUNDS.size);
const seqNumber = integerIn(0, Number.MAX_SAFE_INTEGER);
const touchId = integerIn(-(2 ** 31), 2 ** 31 - 1);
const text = (v: unknown): v is string => typeof v === 'string' && v.length <= INPUT_BOUNDS.text;
const clampDelta = (v: number) => Math.max(-INPUT_BOUNDS.wheelDelta, Math.min(INPUT_BOUNDS.wheelDelta, v));

/** `v` when it passes `check`, `fallback` when it is absent, and undefined (drop the event) otherwise. */
function optional<T>(v: unknown, check: Check<T>, fallback: T): T | undefined {
  if (v === undefined) return fallback;
  return check(v) ? v : undefined;
}

function touches(v: unknown): TouchPoint[] | null {
  if (!Array.isArray(v) || v.length > INPUT_BOUNDS.touches) return null;
  const out: TouchPoint[] = [];
  for (const t of v) {
    if (!t || typeof t !== 'object') return null;
    const { id, x, y } = t as Json;
    if (!touchId(id) || !coordinate(x) || !coordinate(y)) return null;
    out.push({ id, x, y });
  }
  return out;
}

/**
 * Parses one `input` message; null when it is not a well-formed event of a known type within INPUT_BOUNDS.
 * An application must get nothing from it that could make it loop, allocate or restart without bound.
 */
export function parseInput(data: unknown): InputEvent | null {
  const o = object(data, MAX_MESSAGE_LENGTH);
  if (!o) return null;
  // A malformed number is dropped, not the event: it only labels the event.
  const seq = seqNumber(o.seq) ? { seq: o.seq } : {};
  const { x, y } = o;
  switch (o.type) {
    case 'pointermove': {
      const held = optional(o.buttons, buttons, 0);
      if (!coordinate(x) || !coordinate(y) || held === undefined) return null;
      return { type: o.type, x, y, buttons: held, ...seq };
    }
    case 'pointerdown':
    case 'pointerup': {
      const which = optional(o.button, button, 0);
      if (!coordinate(x) || !coordinate(y) || which === undefined) return null;
      return { type: o.type, x, y, button: which, ...seq };
    }
    case 'wheel':
      if (!coordinate(x) || !coordinate(y) || !finite(o.deltaX) || !finite(o.deltaY)) return null;
      return { type: o.type, x, y, deltaX: clampDelta(o.deltaX), deltaY: clampDelta(o.deltaY), ...seq };
    case 'keydown':
    case 'keyup': {
      const code = optional(o.code, text, '');
      if (!text(o.key) || code === undefined) return null;
      return { type: o.type, key: o.key, code, ...seq };
    }
    case 'touchstart':
    case 'touchmove':
    case 'touchend': {
      const list = touches(o.touches);
      return list ? { type: o.type, touches: list, ...seq } : null;
    }
    case 'resize':
      if (!dimension(o.width) || !dimension(o.height)) return null;
      return { type: o.type, width: o.width, height: o.height, ...seq };
    default:
      return null;
  }
}

/**
 * Parses one `messages` message; null when it has no string `event_type`. A missing or non-object payload
 * reads as `{}`. Applications read at most MAX_MESSAGE_LENGTH; the player reads what its application sends.
 */
export function parseAppMessage(data: unknown, maxLength = Infinity): AppMessage | null {
  const o = object(data, maxLength);
  if (!o || typeof o.event_type !== 'string') return null;
  const payload = o.payload && typeof o.payload === 'object' && !Array.isArray(o.payload) ? o.payload : {};
  return { event_type: o.event_type, payload: payload as Json };
}

/**
 * `keepAlive` (no payload), from a player on `messages` every KEEP_ALIVE_EVERY_MS while the channel is open: a
 * viewer that sends it says it is never silent for long, so once the application has heard nothing at all from it
 * for a few seconds (streamer/transport/viewer-liveness.ts), it is gone, and its place is free for the next one.
 * A viewer that never sends it (another WHEP client) is given the long silence timeout of any viewer. The
 * applications answer it with nothing and never see it.
 */
export const KEEP_ALIVE_EVENT = 'keepAlive';

/**
 * How often a player sends `keepAlive`. A browser runs a hidden tab's timers about once a second, and a page with an
 * open peer connection is spared its harsher throttling, so this is what every open tab can keep to.
 */
export const KEEP_ALIVE_EVERY_MS = 1000;

/** The text of one `keepAlive`, as a player sends it. */
export const KEEP_ALIVE_MESSAGE = JSON.stringify({ event_type: KEEP_ALIVE_EVENT, payload: {} });

/**
 * `cursorImage`, from an application that streams a pointer of its own (the display host): the pointer's
 * image, for a controlling player to show as its local cursor over the stream instead of one drawn into the
 * video, which lags behind the person's hand by the stream's latency. `hidden` when the program shows none.
 */
export const CURSOR_IMAGE_EVENT = 'cursorImage';

/** The largest cursor width and height sent as an image; a larger one stays drawn into the video. */
export const MAX_CURSOR_SIZE = 128;

export type CursorImagePayload = { url: string; hotspot_x: number; hotspot_y: number } | { hidden: true };

const PNG_DATA_URL = /^data:image\/png;base64,[A-Za-z0-9+/]+={0,2}$/;
const hotspot = integerIn(0, MAX_CURSOR_SIZE - 1);

/**
 * Reads a `cursorImage` payload; null unless it is `{hidden: true}` or a base64 PNG data URL with a hot spot
 * inside MAX_CURSOR_SIZE. What passes is safe to put into a CSS `cursor` value as it is.
 */
export function parseCursorImage(payload: Record<string, unknown>): CursorImagePayload | null {
  if (payload.hidden === true) return { hidden: true };
  const { url, hotspot_x: x, hotspot_y: y } = payload;
  if (typeof url !== 'string' || !PNG_DATA_URL.test(url) || !hotspot(x) || !hotspot(y)) return null;
  return { url, hotspot_x: x, hotspot_y: y };
}
