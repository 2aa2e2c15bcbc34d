import { useEffect, useState } from 'react';
import type { PlayerState } from '../../../player';

/** How long the player may try without a picture before the page says so. */
export const NO_PICTURE_MS = 10_000;

/** The states in which the player is still trying to show a picture. */
function trying(state: PlayerState): boolean {
  return state.kind === 'connecting' || state.kind === 'waiting-for-video' || state.kind === 'reconnecting';
}

/**
 * Whether the player has tried for `NO_PICTURE_MS` without showing a picture: counted from its start or its
 * last picture, across its own reconnects (each gives up after 15 s and tries again, which alone says
 * nothing a person can act on).
 */
export function useNoPicture(state: PlayerState): boolean {
  const waiting = trying(state);
  const [late, setLate] = useState(false);
  useEffect(() => {
    if (!waiting) return undefined;
    const timer = setTimeout(() => setLate(true), NO_PICTURE_MS);
    return () => {
      clearTimeout(timer);
      setLate(false);
    };
  }, [waiting]);
  return waiting && late;
}
