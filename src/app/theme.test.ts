import { getContrastRatio } from '@mui/material/styles';
import { describe, expect, it } from 'vitest';
import { makeTheme } from './theme';

const colours = ['primary', 'secondary', 'success', 'warning', 'error', 'info'] as const;

describe('theme', () => {
  it('keeps a button label on one line: a wrapped one reads as two buttons', () => {
    for (const mode of ['light', 'dark'] as const)
      expect(makeTheme(mode).components?.MuiButton?.styleOverrides?.root).toMatchObject({
        whiteSpace: 'nowrap',
      });
  });

  for (const mode of ['light', 'dark'] as const) {
    it(`gives every filled colour (chips, contained buttons) AA contrast in the ${mode} mode`, () => {
      const { palette } = makeTheme(mode);
      const ratios = Object.fromEntries(
        colours.map((c) => [c, getContrastRatio(palette[c].main, palette[c].contrastText)]),
      );
      for (const c of colours) expect(ratios[c], c).toBeGreaterThanOrEqual(4.5);
    });

    it(`gives coloured text on the page background AA contrast in the ${mode} mode`, () => {
      const { palette } = makeTheme(mode);
      for (const c of ['primary', 'error'] as const)
        expect(getContrastRatio(palette[c].main, palette.background.default), c).toBeGreaterThanOrEqual(4.5);
    });
  }
});
