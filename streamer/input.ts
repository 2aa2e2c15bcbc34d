/**
 * The two data channels' message formats: `input` events (coordinates in stream pixels) and Kit-style
 * `messages` events. Anything malformed parses to null and is ignored, never thrown.
 */

/** One touch point of a touch event. */
export interface TouchPoint {
  id: number;
  x: number;
  y: number;
}

/** An event from the `input` channel; any of them may carry a numeric `seq`. */
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

function object(text: string | Buffer | ArrayBuffer): Json | null {
  if (typeof text !== 'string') return null;
  if (text.length > 64 * 1024) return null;
  try {
    const value: unknown = JSON.parse(text);
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
export function parseInput(text: string | Buffer | ArrayBuffer): InputEvent | null {
  const o = object(text);
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

/** Parses one `messages` message; null when it has no string `event_type`. */
export function parseMessage(text: string | Buffer | ArrayBuffer): AppMessage | null {
  const o = object(text);
  if (!o || typeof o.event_type !== 'string') return null;
  const payload = o.payload && typeof o.payload === 'object' && !Array.isArray(o.payload) ? o.payload : {};
  return { event_type: o.event_type, payload: payload as Json };
}
