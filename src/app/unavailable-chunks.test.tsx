/**
 * The app bar and the catalog when the code of their extras (the icon buttons' tooltips, the tag filter)
 * cannot be downloaded, as when the server goes away just after the page has come: the page stays, and so
 * does its navigation. (Before, the failed import reached the layout's error boundary and took the whole page.)
 */
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { apps } from '../test/fixtures';
import { renderRoute } from '../test/render';
import { api, http, HttpResponse, server } from '../test/server';

const asked = vi.hoisted((): string[] => []);

/** What the browser raises when a chunk cannot be downloaded. */
function unreachable(name: string): never {
  asked.push(name);
  throw new TypeError(`Failed to fetch dynamically imported module: http://portal.test/assets/${name}.js`);
}

vi.mock('@mui/material/Tooltip', () => unreachable('Tooltip'));
vi.mock('../features/catalog/components/tag-filter', () => unreachable('tag-filter'));

describe('extras whose code cannot be downloaded', { timeout: 30_000 }, () => {
  it('leave the catalog and its navigation on screen and usable', async () => {
    // Time runs on its own (the pages load lazily), and is moved on by hand where the page takes failures in.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    onTestFinished(() => void vi.useRealTimers());
    server.use(http.get(api('/cfg/apps'), () => HttpResponse.json({ count: 3, items: apps })));
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const { router } = renderRoute('/apps');
    expect(await screen.findByRole('link', { name: 'USD Viewer' })).toBeInTheDocument();
    const launch = within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', {
      name: 'Launch',
    });
    // Both chunks were asked for and refused; a moment for the page to take the failures in.
    await waitFor(() => expect([...asked].sort()).toEqual(['Tooltip', 'tag-filter']));
    await act(() => vi.advanceTimersByTimeAsync(1_000));

    expect(screen.queryByRole('heading', { name: 'Something went wrong' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'USD Viewer' })).toBeInTheDocument();
    // The tag field stays the one that is not usable; the theme button is there, without its hint.
    expect(screen.getByRole('textbox', { name: 'Tags' })).toBeDisabled();
    expect(screen.getByRole('button', { name: /Switch to (dark|light) theme/ })).toBeInTheDocument();
    // The same link, not one rendered again in its place, and it works.
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Launch' })).toBe(launch);
    await user.click(within(nav).getByRole('link', { name: 'Settings' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/settings'));
    expect(await screen.findByRole('heading', { name: 'Settings' })).toBeInTheDocument();
  });
});
