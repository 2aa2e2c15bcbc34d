import { describe, expect, it } from 'vitest';
import { activeNavItem } from './nav-links';

describe('the lit navigation item', () => {
  it('is the catalog on the home page and below /apps, and exactly one item on every page of the portal', () => {
    const lit = (path: string) => activeNavItem(path)?.label;
    expect(lit('/')).toBe('Catalog');
    expect(lit('/apps')).toBe('Catalog');
    expect(lit('/apps/usd-viewer/versions/1.2.0')).toBe('Catalog');
    expect(lit('/launch')).toBe('Launch');
    expect(lit('/sessions')).toBe('Sessions');
    expect(lit('/sessions/3f2b8c1e-5d4a-4b6c-9e8f-0a1b2c3d4e5f')).toBe('Sessions');
    expect(lit('/admin/profiles')).toBe('Profiles');
    expect(lit('/admin/capacity')).toBe('Profiles');
    expect(lit('/check')).toBe('Check');
    expect(lit('/settings')).toBe('Settings');
  });

  it('is none on a watch link or an unknown page, and no prefix of a word lights an item', () => {
    for (const path of ['/watch', '/no/such/page', '/launcher', '/appsx', '/checkout'])
      expect(activeNavItem(path)).toBe(undefined);
  });
});
