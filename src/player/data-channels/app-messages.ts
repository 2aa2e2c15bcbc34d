/** The `messages` data channel: application events `{event_type, payload}` both ways (Kit's convention). */

/** One application event. */
export interface AppMessage {
  event_type: string;
  payload: Record<string, unknown>;
}

/** Names of the two channels the offer opens, in this order. */
export const INPUT_CHANNEL = 'input';
export const MESSAGES_CHANNEL = 'messages';

/** Reads one message; undefined for anything that is not an event object (it is ignored, not fatal). */
export function parseAppMessage(data: unknown): AppMessage | undefined {
  if (typeof data !== 'string') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { event_type: eventType, payload } = value as Record<string, unknown>;
  if (typeof eventType !== 'string' || eventType === '') return undefined;
  const body = typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? payload : {};
  return { event_type: eventType, payload: body as Record<string, unknown> };
}
