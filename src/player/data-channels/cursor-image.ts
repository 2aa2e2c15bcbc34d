/**
 * `cursorImage` (protocol/data-channels.ts): an application that streams a pointer of its own sends its image,
 * and a controlling player shows it as the local cursor over the stream, where it follows the hand at once,
 * instead of a pointer drawn into the video a stream's latency late.
 */
import { parseCursorImage } from '../../../protocol/data-channels';

export { CURSOR_IMAGE_EVENT } from '../../../protocol/data-channels';

/** The CSS `cursor` value for a `cursorImage` payload; undefined for a malformed one. */
export function cursorStyle(payload: Record<string, unknown>): string | undefined {
  const cursor = parseCursorImage(payload);
  if (!cursor) return undefined;
  // The URL is base64 with no quote or parenthesis (parseCursorImage checks): safe inside url("...").
  return 'hidden' in cursor
    ? 'none'
    : `url("${cursor.url}") ${cursor.hotspot_x} ${cursor.hotspot_y}, default`;
}
