/**
 * What an application streams with, and the stream's size as a viewer's `resize` changes it. What an application is started with is its launch
 * (protocol/launch.ts): parsed there once, for the sample application and the display host alike.
 */
import { even, type Launch } from '../../protocol/launch.ts';

/** Everything an application streams with; a display host's program aside. */
export type StreamerOptions = Omit<Launch, 'display'>;

/** The size and rate of the stream, as /health gives them. */
export interface StreamSize {
  width: number;
  height: number;
  fps: number;
}

/**
 * The stream size a viewer's `resize` asks for: even, within the profile's maximum; null when it is
 * below 64 pixels either way or the same as `current` (nothing to restart).
 */
export function resizedTo(
  width: number,
  height: number,
  max: { maxWidth: number; maxHeight: number },
  current: { width: number; height: number },
): { width: number; height: number } | null {
  const w = Math.min(even(width), max.maxWidth);
  const h = Math.min(even(height), max.maxHeight);
  if (w < 64 || h < 64 || (w === current.width && h === current.height)) return null;
  return { width: w, height: h };
}
