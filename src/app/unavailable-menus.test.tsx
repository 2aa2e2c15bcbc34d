/**
 * The app bar's sessions menu and the phone's navigation drawer when their code cannot be downloaded: the
 * button is closed again, the page stays, and the next opening asks for the code anew (React.lazy alone would
 * keep the failure until a reload).
 */
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactElement } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ready } from '../test/fixtures';
import { renderRoute } from '../test/render';
import { api, http, HttpResponse, server } from '../test/server';

const chunks = vi.hoisted(() => ({ down: true, asked: [] as string[] }));

/** What the browser raises when a chunk cannot be downloaded, while `chunks.down`. */
function unreachable(name: string) {
  chunks.asked.push(name);
  if (chunks.down) {
    throw new TypeError(`Failed to fetch dynamically imported module: http://portal.test/assets/${name}.js`);
  }
}

vi.mock('./active-sessions-menu', async (original) => {
  unreachable('active-sessions-menu');
  return original();
});
vi.mock('./nav-drawer', async (original) => {
  unreachable('nav-drawer');
  return original();
});
// The buttons' tooltips are another test's subject: here the buttons stay the same elements throughout.
vi.mock('../components/hint-tooltip', () => ({
  HintTooltip: ({ children }: { children: ReactElement }) => children,
}));

describe('a menu whose code cannot be downloaded', { timeout: 30_000 }, () => {
  it('closes again, leaves the page, and its next opening loads it', async () => {
    server.use(
      http.get(api('/cfg/apps'), () => HttpResponse.json({ count: 0, items: [] })),
      http.get(api('/stream'), () => HttpResponse.json({ offset: 0, limit: 500, count: 1, items: [ready] })),
    );
    const user = userEvent.setup();
    renderRoute('/settings');
    const sessions = await screen.findByRole('button', { name: 'Your sessions: 1 session' });
    const drawer = screen.getByRole('button', { name: 'Open navigation' });

    await user.click(sessions);
    await waitFor(() => expect(chunks.asked).toEqual(['active-sessions-menu']));
    await waitFor(() => expect(sessions).toHaveAttribute('aria-expanded', 'false'));
    await user.click(drawer);
    await waitFor(() => expect(chunks.asked).toEqual(['active-sessions-menu', 'nav-drawer']));
    await waitFor(() => expect(drawer).toHaveAttribute('aria-expanded', 'false'));
    expect(screen.queryByRole('heading', { name: 'Something went wrong' })).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Settings' })).toBeInTheDocument();

    chunks.down = false;
    await user.click(sessions);
    expect(await screen.findByRole('menu', { name: 'Your sessions' })).toBeInTheDocument();
    await user.keyboard('{Escape}');
    await user.click(drawer);
    expect(await screen.findByRole('dialog', { name: 'Navigation' })).toBeInTheDocument();
    expect(chunks.asked).toEqual([
      'active-sessions-menu',
      'nav-drawer',
      'active-sessions-menu',
      'nav-drawer',
    ]);
  });
});
