import { useEffect, useState } from 'react';

/** The panels below the stage come at the latest this long after the page, if the connection takes longer. */
const PANELS_AT_LATEST_MS = 500;

/**
 * Whether the panels below the stage (watch link, clipboard, message log) are shown: once the first frame
 * is on screen (or the connection failed), or after a moment. They take tens of milliseconds of the main
 * thread to render, which the connection needs first: measured in a launch, the page's render held the
 * ticket request and the offer back by 40-80 ms. Below the stage, they move nothing on screen when they come.
 */
export function usePanelsAfterConnecting(connecting: boolean): boolean {
  const [shown, setShown] = useState(!connecting);
  useEffect(() => {
    if (shown) return undefined;
    if (!connecting) {
      setShown(true);
      return undefined;
    }
    const timer = setTimeout(() => setShown(true), PANELS_AT_LATEST_MS);
    return () => clearTimeout(timer);
  }, [connecting, shown]);
  return shown;
}
