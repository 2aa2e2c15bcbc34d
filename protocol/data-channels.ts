/**
 * The two data channels between a player and an application (CONTRACT 12), defined once for both sides:
 * the player (src/player) sends `input` events and reads `messages`; the applications (streamer/) read
 * both with the parsers below. Plain TypeScript, neither DOM nor Node: it runs in the browser and in Node.
 *
 * - `input`: JSON events from the player, coordinates in stream pixels.
 * - `messages`: application events `{event_type, payload}` both ways (Kit's convention).
 *
 * Anything malformed parses to null and is ignored, never thrown.
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

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const str = (v: unknown): v is string => typeof v === 'string' && v.length <= 256;

function touches(v: unknown): TouchPoint[] | null {
  if (!Array.isArray(v) || v.length > 20) return null;
  const out: TouchPoint[] = [];
  for (const t of v) {
    if (!t || typeof t !== 'object') return null;
    const { id, x, y } = t as Json;
    if (!num(id) || !num(x) || !num(y)) return null;
    out.push({ id, x, y });
  }
  return out;
}

/** Parses one `input` message; null when it is not a well-formed event of a known type. */
export function parseInput(data: unknown): InputEvent | null {
  const o = object(data, MAX_MESSAGE_LENGTH);
  if (!o) return null;
  const seq = num(o.seq) ? { seq: o.seq } : {};
  const { x, y } = o;
  switch (o.type) {
    case 'pointermove':
      if (!num(x) || !num(y)) return null;
      return { type: o.type, x, y, buttons: num(o.buttons) ? o.buttons : 0, ...seq };
    case 'pointerdown':
    case 'pointerup':
      if (!num(x) || !num(y)) return null;
      return { type: o.type, x, y, button: num(o.button) ? o.button : 0, ...seq };
    case 'wheel':
      if (!num(x) || !num(y) || !num(o.deltaX) || !num(o.deltaY)) return null;
      return { type: o.type, x, y, deltaX: o.deltaX, deltaY: o.deltaY, ...seq };
    case 'keydown':
    case 'keyup':
      if (!str(o.key)) return null;
      return { type: o.type, key: o.key, code: str(o.code) ? o.code : '', ...seq };
    case 'touchstart':
    case 'touchmove':
    case 'touchend': {
      const list = touches(o.touches);
      return list ? { type: o.type, touches: list, ...seq } : null;
    }
    case 'resize':
      if (!num(o.width) || !num(o.height) || o.width <= 0 || o.height <= 0) return null;
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
