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
    },
    shape: { borderRadius: 8 },
    components: {
      MuiButton: { defaultProps: { disableElevation: true } },
      MuiCard: { defaultProps: { variant: 'outlined' } },
      MuiTextField: { defaultProps: { size: 'small' } },
      MuiChip: { defaultProps: { size: 'small' } },
      MuiLink: { defaultProps: { underline: 'hover' } },
    },
  });
}
