/** Over the video while it has focus: how to get the keyboard back from the application, or give it again. */
import Box from '@mui/material/Box';
import type { KeyboardCapture } from '../../../player';

/** The id the video names in `aria-describedby`, so that a screen reader says the hint on focus. */
export const KEYBOARD_HINT_ID = 'viewer-keyboard-hint';

const TEXT: Record<Exclude<KeyboardCapture, 'idle'>, string> = {
  captured: 'Press Esc to release the keyboard',
  released: 'Keyboard released: Tab moves on, Enter gives it back to the application',
};

/** Nothing while the video has no focus. */
export function KeyboardHint({ capture }: { capture: KeyboardCapture }) {
  if (capture === 'idle') return null;
  return (
    <Box
      id={KEYBOARD_HINT_ID}
      role="status"
      aria-label="Keyboard"
      sx={{
        position: 'absolute',
        top: 8,
        left: '50%',
        transform: 'translateX(-50%)',
        px: 1.5,
        py: 0.5,
        borderRadius: 1,
        bgcolor: 'rgba(0,0,0,0.7)',
        color: 'common.white',
        typography: 'body2',
        pointerEvents: 'none',
        zIndex: 2,
      }}
    >
      {TEXT[capture]}
    </Box>
  );
}
