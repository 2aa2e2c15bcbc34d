import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import CssBaseline from '@mui/material/CssBaseline';
import { ThemeProvider } from '@mui/material/styles';
import { makeTheme, type ThemeMode } from './theme';

/** localStorage key of the chosen theme mode. */
export const THEME_KEY = 'streamgate.theme';

interface ThemeModeValue {
  mode: ThemeMode;
  toggle: () => void;
}

const ThemeModeContext = createContext<ThemeModeValue>({ mode: 'light', toggle: () => undefined });

function initialMode(): ThemeMode {
  const saved = globalThis.localStorage?.getItem(THEME_KEY);
  if (saved === 'light' || saved === 'dark') return saved;
  return globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** Provides the theme and remembers the mode chosen with the toggle. */
export function ThemeModeProvider({ children }: { children: ReactNode }) {
  const [mode, setMode] = useState<ThemeMode>(initialMode);
  const value = useMemo(
    () => ({
      mode,
      toggle: () =>
        setMode((m) => {
          const next = m === 'light' ? 'dark' : 'light';
          globalThis.localStorage?.setItem(THEME_KEY, next);
          return next;
        }),
    }),
    [mode],
  );
  const theme = useMemo(() => makeTheme(mode), [mode]);
  return (
    <ThemeModeContext.Provider value={value}>
      <ThemeProvider theme={theme}>
        <CssBaseline />
        {children}
      </ThemeProvider>
    </ThemeModeContext.Provider>
  );
}

/** The current mode and its toggle. */
export function useThemeMode(): ThemeModeValue {
  return useContext(ThemeModeContext);
}
