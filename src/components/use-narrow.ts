import type { Breakpoint } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';

/**
 * True on screens narrower than `below` (a phone by default), where tables and rows of buttons give way to
 * stacked cards and menus so that nothing scrolls sideways. Read at once, not after a first wide render.
 */
export function useNarrow(below: Breakpoint = 'sm'): boolean {
  return useMediaQuery((theme) => theme.breakpoints.down(below), { noSsr: true });
}
