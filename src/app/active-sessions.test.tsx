import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { apps, pending, ready } from '../test/fixtures';
import { renderRoute } from '../test/render';
import { api, http, HttpResponse, server } from '../test/server';

const waiting = {
  ...pending,
  id: '11111111-1111-4111-8111-111111111111',
  app: 'usd-viewer',
  version: '1.2.0',
};
const running = { ...ready, id: '22222222-2222-4222-8222-222222222222' };
const failed = {
  id: '33333333-3333-4333-8333-333333333333',
  status: { condition: 'failed', message: 'It crashed.', status: false },
};

function list(items: unknown[]) {
  return http.get(api('/stream'), () =>
    HttpResponse.json({ offset: 0, limit: 500, count: items.length, items }),
  );
}

describe('the app bar sessions indicator', { timeout: 30_000 }, () => {
  it('counts the waiting and running sessions and opens each viewer from its menu, named by the catalog', async () => {
    server.use(
      list([waiting, running, failed]),
      http.get(api('/cfg/apps/:id'), () => HttpResponse.json(apps[0])),
      // The viewer the menu opens asks for its session.
      http.get(api('/stream/:id'), () => HttpResponse.json(running)),
    );
    const user = userEvent.setup();
    const { router } = renderRoute('/settings');
    await user.click(await screen.findByRole('button', { name: 'Your sessions: 2 sessions, 1 waiting' }));
    const menu = await screen.findByRole('menu', { name: 'Your sessions' });
    expect(await within(menu).findByText('USD Viewer 1.2.0')).toBeInTheDocument();
    const items = within(menu).getAllByRole('menuitem');
    expect(items.map((i) => i.textContent)).toEqual([
      `USD Viewer 1.2.0${pending.status.message}`,
      'Session 22222222Running',
      'All sessions',
    ]);
    expect(items[0]).toHaveAttribute('href', `/sessions/${waiting.id}`);
    await user.click(items[1]!);
    expect(router.state.location.pathname).toBe(`/sessions/${running.id}`);
  });

  it.each([
    ['no session waits or runs', list([failed])],
    [
      'the list is refused',
      http.get(api('/stream'), () => HttpResponse.json({ detail: 'Not authenticated' }, { status: 403 })),
    ],
  ])('shows nothing, and no error, when %s', async (_case, handler) => {
    server.use(handler);
    renderRoute('/settings');
    expect(await screen.findByRole('heading', { name: 'Settings' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Your sessions/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});
