import { useEffect, useRef } from 'react';

/** Keys the page keeps for itself rather than forwarding to the application (Escape is the player's own). */
export function isViewerShortcut(event: KeyboardEvent): boolean {
  const key = event.key.toLowerCase();
  return event.ctrlKey && event.shiftKey && (key === 's' || key === 'f');
}

/** Ctrl+Shift+S toggles the stats, Ctrl+Shift+F fullscreen. */
export function useViewerShortcuts(handlers: { toggleStats: () => void; toggleFullscreen: () => void }) {
  // The latest handlers without re-subscribing on every render.
  const ref = useRef(handlers);
  useEffect(() => {
    ref.current = handlers;
  });
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!event.ctrlKey || !event.shiftKey) return;
      const key = event.key.toLowerCase();
      if (key === 's') ref.current.toggleStats();
      else if (key === 'f') ref.current.toggleFullscreen();
      else return;
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
