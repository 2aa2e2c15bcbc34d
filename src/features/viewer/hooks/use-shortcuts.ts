import { useEffect, useRef } from 'react';

/** The key of each shortcut, pressed with Ctrl+Shift. */
const SHORTCUT_KEYS = { s: 'toggleStats', f: 'toggleFullscreen', m: 'toggleMute' } as const;

type ShortcutHandlers = Record<(typeof SHORTCUT_KEYS)[keyof typeof SHORTCUT_KEYS], () => void>;

function shortcutOf(event: KeyboardEvent): keyof ShortcutHandlers | undefined {
  if (!event.ctrlKey || !event.shiftKey) return undefined;
  const key = event.key.toLowerCase();
  return Object.hasOwn(SHORTCUT_KEYS, key) ? SHORTCUT_KEYS[key as keyof typeof SHORTCUT_KEYS] : undefined;
}

/** Keys the page keeps for itself rather than forwarding to the application (Escape is the player's own). */
export function isViewerShortcut(event: KeyboardEvent): boolean {
  return shortcutOf(event) !== undefined;
}

/** Whether the key is the mute shortcut (Ctrl+Shift+M). */
export function isMuteShortcut(event: KeyboardEvent): boolean {
  return shortcutOf(event) === 'toggleMute';
}

/** Ctrl+Shift+S toggles the stats, Ctrl+Shift+F fullscreen, Ctrl+Shift+M the sound. */
export function useViewerShortcuts(handlers: ShortcutHandlers) {
  // The latest handlers without re-subscribing on every render.
  const ref = useRef(handlers);
  useEffect(() => {
    ref.current = handlers;
  });
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const shortcut = shortcutOf(event);
      if (!shortcut) return;
      ref.current[shortcut]();
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
