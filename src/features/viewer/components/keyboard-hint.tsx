/** Over the video while it has focus: how to get the keyboard back from the application, or give it again. */
import Box from '@mui/material/Box';
import { useEffect, useState } from 'react';
import type { KeyboardCapture } from '../../../player';

/** The id the video names in `aria-describedby`, so that a screen reader says the hint on focus. */
export const KEYBOARD_HINT_ID = 'viewer-keyboard-hint';

/** How long the hint shows after the keyboard changes hands, before it fades out. */
export const KEYBOARD_HINT_MS = 4000;

const TEXT: Record<Exclude<KeyboardCapture, 'idle'>, string> = {
  captured: 'Press Esc to release the keyboard',
  released: 'Keyboard released: Tab moves on, Enter gives it back to the application',
};

/**
 * Nothing while the video has no focus. Small, translucent and in the bottom-left corner, where a picture
 * rarely has its menus and title bar; it fades after `KEYBOARD_HINT_MS`, so that it is read once and then
 * leaves the whole picture to the application. It stays in the page (faded) for a screen reader, which the
 * video names it to.
 */
export function KeyboardHint({ capture }: { capture: KeyboardCapture }) {
  if (capture === 'idle') return null;
  // A new hint each time the keyboard changes hands, shown anew and faded in its turn.
  return <Hint key={capture} capture={capture} />;
}

function Hint({ capture }: { capture: Exclude<KeyboardCapture, 'idle'> }) {
  const [hidden, setHidden] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setHidden(true), KEYBOARD_HINT_MS);
    return () => clearTimeout(timer);
  }, []);
  return (
    <Box
      id={KEYBOARD_HINT_ID}
      role="status"
      aria-label="Keyboard"
      data-faded={hidden}
      sx={{
        position: 'absolute',
        bottom: 8,
        left: 8,
        maxWidth: 'calc(100% - 16px)',
        px: 1,
        py: 0.25,
        borderRadius: 1,
        bgcolor: 'rgba(0,0,0,0.45)',
        color: 'common.white',
        typography: 'caption',
        pointerEvents: 'none',
        zIndex: 2,
        opacity: hidden ? 0 : 1,
        transition: 'opacity 600ms',
      }}
    >
      {TEXT[capture]}
    </Box>
  );
}
