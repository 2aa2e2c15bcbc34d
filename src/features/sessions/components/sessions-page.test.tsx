import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getStartedSessions, rememberSession } from '../../../lib/session-history';
import { pending, ready, sessionId } from '../../../test/fixtures';
import { narrowScreen } from '../../../test/narrow-screen';
import { renderRoute } from '../../../test/render';
import { sessionCatalog } from '../../../test/session-catalog';
import { api, http, HttpResponse, server } from '../../../test/server';

afterEach(() => vi.unstubAllGlobals());

/** The row of `table` that shows session `id` (its short id copies the whole one). */
function rowOf(table: HTMLElement, id: string): HTMLElement {
  return within(table)
    .getByRole('button', { name: `Copy session id ${id}` })
    .closest('tr')!;
}

describe('sessions page', { timeout: 30_000 }, () => {
  it('lists the service sessions by name with state and age, and ends one after confirming', async () => {
    sessionCatalog();
    rememberSession({
      id: sessionId,
      app: 'usd-viewer',
      version: '1.2.0',
      profile: 'default',
      startedAt: Date.now() - 5 * 60_000,
    });
    let alive = true;
    let deleted = 0;
    server.use(
      http.get(api('/stream'), () =>
        HttpResponse.json({ offset: 0, limit: 500, count: alive ? 1 : 0, items: alive ? [ready] : [] }),
      ),
      http.delete(api('/stream/:id'), () => {
        deleted += 1;
        alive = false;
        return new HttpResponse(null, { status: 204 });
      }),
    );
    renderRoute('/sessions');
    const row = rowOf(await screen.findByRole('table', { name: 'Sessions' }), sessionId);
    expect(within(row).getByText('Running')).toBeInTheDocument();
    expect(within(row).getByText('5 min')).toBeInTheDocument();
    // The catalog's names lead; the short id comes after them.
    expect(await within(row).findByText('USD Viewer 1.2.0 (Default)')).toBeInTheDocument();
    const cells = within(row).getAllByRole('cell');
    expect(cells[0]!.textContent).toBe('USD Viewer 1.2.0 (Default)3f2b8c1e');
    const open = within(row).getByRole('link', { name: `Open viewer of ${sessionId}` });
    expect(open).toHaveAttribute('href', `/sessions/${sessionId}`);
    expect(open).toHaveStyle({ whiteSpace: 'nowrap' });
    await userEvent.click(within(row).getByRole('button', { name: `End session ${sessionId}` }));
    const dialog = await screen.findByRole('dialog', { name: 'End this session?' });
    // It names what it ends.
    expect(dialog).toHaveTextContent('USD Viewer 1.2.0 (Default) will be stopped');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Keep it' }));
    expect(deleted).toBe(0);
    // The page is inert until the dialog has finished closing.
    await userEvent.click(await screen.findByRole('button', { name: `End session ${sessionId}` }));
    await userEvent.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'End session' }),
    );
    expect(await screen.findByText(/No sessions/)).toBeInTheDocument();
    expect(deleted).toBe(1);
    expect(getStartedSessions()).toEqual([]);
  });

  it('falls back to the sessions this browser started when the service cannot list (404)', async () => {
    sessionCatalog(false);
    const other = '11111111-2222-4333-8444-555555555555';
    rememberSession({
      id: sessionId,
      app: 'usd-viewer',
      version: '1.2.0',
      profile: 'default',
      startedAt: Date.now(),
    });
    rememberSession({
      id: other,
      app: 'usd-viewer',
      version: '1.2.0',
      profile: 'default',
      startedAt: Date.now(),
    });
    server.use(
      http.get(api('/stream'), () => HttpResponse.json({ detail: 'Not Found' }, { status: 404 })),
      // A real deployment's shape: routes[host] as {routes: [...]}.
      http.get(api('/stream/:id'), ({ params }) =>
        params.id === sessionId
          ? HttpResponse.json({ ...pending, routes: { 'gpu.example.com': { routes: [] } } }, { status: 202 })
          : HttpResponse.json({ detail: 'Session not found.' }, { status: 404 }),
      ),
    );
    renderRoute('/sessions');
    expect(await screen.findByText(/sessions started from this browser/)).toBeInTheDocument();
    const table = screen.getByRole('table', { name: 'Sessions' });
    expect(within(rowOf(table, sessionId)).getByText('Waiting')).toBeInTheDocument();
    expect(within(table).queryByRole('button', { name: `Copy session id ${other}` })).not.toBeInTheDocument();
    await waitFor(() => expect(getStartedSessions().map((s) => s.id)).toEqual([sessionId]));
  });

  it('says what runs, since when and whose, for sessions started in another browser', async () => {
    sessionCatalog(false);
    const created = new Date(Date.now() - 65 * 60_000).toISOString();
    const endsAt = new Date(Date.now() + 55 * 60_000);
    const idleEndsAt = new Date(Date.now() + 8 * 60_000);
    server.use(
      http.get(api('/stream'), () =>
        HttpResponse.json({
          count: 1,
          items: [
            {
              ...ready,
              app: 'usd-viewer',
              version: '1.2.0',
              profile: 'default',
              created_at: created,
              user: 'alice',
              ends_at: endsAt.toISOString(),
              idle_ends_at: idleEndsAt.toISOString(),
            },
          ],
        }),
      ),
    );
    renderRoute('/sessions');
    const row = rowOf(await screen.findByRole('table', { name: 'Sessions' }), sessionId);
    expect(within(row).getByText('usd-viewer 1.2.0 (default)')).toBeInTheDocument();
    expect(within(row).getByText('1 h 5 min, by alice')).toBeInTheDocument();
    // When it ends at its lifetime, unless extended.
    const time = endsAt.toLocaleTimeString(undefined, { timeStyle: 'short' });
    expect(within(row).getByText(`Ends at ${time}`)).toBeInTheDocument();
    // Sooner, when nobody watches it.
    const idle = idleEndsAt.toLocaleTimeString(undefined, { timeStyle: 'short' });
    expect(within(row).getByText(`No viewer: ends at ${idle} unless it is opened`)).toBeInTheDocument();
  });

  it('stacks the sessions as cards on a narrow screen', async () => {
    narrowScreen();
    server.use(http.get(api('/stream'), () => HttpResponse.json({ count: 1, items: [pending] })));
    renderRoute('/sessions');
    const list = await screen.findByRole('list', { name: 'Sessions' });
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    const card = within(list).getByRole('listitem');
    expect(card).toHaveTextContent('Application unknown');
    expect(card).toHaveTextContent('Age: unknown');
    expect(within(card).getByText('Waiting')).toBeInTheDocument();
    expect(within(card).getByText('Waiting for a free GPU: 1 session ahead')).toBeInTheDocument();
    expect(within(card).getByRole('button', { name: `End session ${sessionId}` })).toBeInTheDocument();
  });

  it('shows a 403 in words', async () => {
    server.use(
      http.get(api('/stream'), () => HttpResponse.json({ detail: 'Not authenticated' }, { status: 403 })),
    );
    renderRoute('/sessions');
    expect(await screen.findByRole('alert')).toHaveTextContent('permission');
  });
});
