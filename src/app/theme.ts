/** The one theme of the portal, light and dark, with per-component customisations. */
import { createTheme, type Theme } from '@mui/material/styles';

/** Light or dark. */
export type ThemeMode = 'light' | 'dark';

/** Builds the theme for a mode. */
export function makeTheme(mode: ThemeMode): Theme {
  return createTheme({
    palette: {
      mode,
      primary: { main: mode === 'light' ? '#1b5e20' : '#81c784' },
      secondary: { main: mode === 'light' ? '#37474f' : '#b0bec5' },
      // MUI's light warning and info and its dark error carry white text at 3.1:1, 3.9:1 and 3.7:1;
      // these reach AA (4.5:1), the dark error by taking dark text.
      ...(mode === 'light'
        ? { warning: { main: '#b45309' }, info: { main: '#01579b' } }
        : { error: { main: '#ef9a9a' } }),
    },
    shape: { borderRadius: 8 },
    components: {
      // A label on two lines reads as two buttons ("Open / viewer" in a table cell): labels stay whole, and
      // the layouts around them wrap or stack instead.
      MuiButton: {
        defaultProps: { disableElevation: true },
        styleOverrides: { root: { whiteSpace: 'nowrap' } },
      },
      MuiCard: { defaultProps: { variant: 'outlined' } },
      MuiTextField: { defaultProps: { size: 'small' } },
      MuiChip: { defaultProps: { size: 'small' } },
      MuiLink: { defaultProps: { underline: 'hover' } },
    },
  });
}
