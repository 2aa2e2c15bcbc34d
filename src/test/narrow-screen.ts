/** A phone-sized screen for component tests: jsdom has no layout, so media queries are answered here. */
import { vi } from 'vitest';

/** Makes every `max-width` media query match (and `min-width` ones fail) until `vi.unstubAllGlobals()`. */
export function narrowScreen(): void {
  vi.stubGlobal('matchMedia', (query: string) => ({
    matches: query.includes('max-width'),
    media: query,
    onchange: null,
    addListener: () => undefined,
    removeListener: () => undefined,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    dispatchEvent: () => false,
  }));
}
