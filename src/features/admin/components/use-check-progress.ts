import { useCallback, useEffect, useRef, useState } from 'react';
import type { CheckProgressListener } from '../api/check-profiles';

/** How far a profile check got: checks done out of the total. */
export interface CheckProgress {
  checked: number;
  total: number;
}

/**
 * Progress of a profile check as React state, for a listener that may be called once per cell.
 * Calls only note the latest count; one state update per animation frame carries it to the screen.
 * A frame is the most a person can see, so no count that could be shown is lost, thousands of cells
 * cost at most one render per frame (not one each), and a hidden tab, which runs no frames, renders
 * nothing until it is shown again.
 */
export function useCheckProgress(): {
  progress: CheckProgress | undefined;
  onProgress: CheckProgressListener;
  reset: () => void;
} {
  const [progress, setProgress] = useState<CheckProgress>();
  const latest = useRef<CheckProgress | undefined>(undefined);
  const frame = useRef<number | undefined>(undefined);

  const onProgress = useCallback<CheckProgressListener>((checked, total) => {
    latest.current = { checked, total };
    frame.current ??= requestAnimationFrame(() => {
      frame.current = undefined;
      setProgress(latest.current);
    });
  }, []);
  // A frame still pending reads `latest`, so clearing it keeps the old count from coming back.
  const reset = useCallback(() => {
    latest.current = undefined;
    setProgress(undefined);
  }, []);
  // A check can outlive the page (it finishes into the cache); its last frame is not drawn.
  useEffect(
    () => () => {
      if (frame.current !== undefined) cancelAnimationFrame(frame.current);
      frame.current = undefined;
    },
    [],
  );

  return { progress, onProgress, reset };
}
