/**
 * The `messages` data channel as the player reads it: application events `{event_type, payload}` both ways.
 * The format is defined once, for the player and the applications, in protocol/data-channels.ts.
 */
import { parseAppMessage as parseMessage, type AppMessage } from '../../../protocol/data-channels';

export {
  INPUT_CHANNEL,
  KEEP_ALIVE_EVERY_MS,
  KEEP_ALIVE_MESSAGE,
  MESSAGES_CHANNEL,
  type AppMessage,
} from '../../../protocol/data-channels';

/** Reads one message; undefined for anything but an event object of a named type (ignored, not fatal). */
export function parseAppMessage(data: unknown): AppMessage | undefined {
  const message = parseMessage(data);
  return message && message.event_type !== '' ? message : undefined;
}
