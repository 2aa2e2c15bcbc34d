/** The admin page's profile availability: its table, its filter, its cards on a narrow screen, and the capacity. */
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { catalog, cell } from '../../../test/admin-catalog';
import { narrowScreen } from '../../../test/narrow-screen';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';
import { outcomeKey } from '../api/try-outcomes';

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  server.events.removeAllListeners();
});

describe('profile availability page', { timeout: 30_000 }, () => {
  it('says in words which profiles apply, by application name and newest version first, with no failed request', async () => {
    const statuses = catalog();
    const at = Date.now() - 125_000;
    localStorage.setItem(
      outcomeKey({ app: 'usd-viewer', version: '2.0.0', profile: 'default' }),
      JSON.stringify({ kind: 'frame', ms: 812, at }),
    );
    renderRoute('/admin/profiles');
    const table = await screen.findByRole('table', { name: 'Profile availability' });

    const columns = within(table)
      .getAllByRole('columnheader')
      .map((h) => h.textContent);
    expect(columns).toEqual(['Application version', 'Defaultdefault', 'Smallsmall']);
    const rows = within(table)
      .getAllByRole('rowheader')
      .map((h) => h.textContent);
    expect(rows).toEqual([
      'USD Composer 2.0.0usd-composer',
      'USD Composer 1.0.0usd-composer',
      'USD Viewer 2.0.0usd-viewer',
      'USD Viewer 1.0.0usd-viewer',
    ]);
    expect(cell(table, 'USD Viewer 1.0.0', 'Small')).toHaveTextContent(/^does not apply$/);
    // Before any Try a cell says what the catalog says, and that it is untested: not "available".
    expect(cell(table, 'USD Viewer 1.0.0', 'Default')).toHaveTextContent(/^appliesnot tried yetTry$/);
    expect(cell(table, 'USD Viewer 2.0.0', 'Default')).toHaveTextContent(
      /^worksfirst frame in 812 ms, 2 min agoTry$/,
    );
    const works = within(cell(table, 'USD Viewer 2.0.0', 'Default'))
      .getByText('works')
      .closest('.MuiChip-root')!;
    expect(works).toHaveClass('MuiChip-colorSuccess');
    expect(within(works as HTMLElement).getByTestId('CheckCircleIcon')).toBeInTheDocument();
    expect(screen.getByRole('status', { name: 'Summary of the Tries' })).toHaveTextContent(
      '1 of 6 works, 5 untested',
    );
    // Only where a profile applies is there something to try, each named for what it launches.
    expect(within(table).getAllByRole('button', { name: /^Try / })).toHaveLength(6);
    expect(within(table).getByRole('button', { name: 'Try USD Viewer 2.0.0 with Small' })).toBeEnabled();
    expect(within(table).queryByRole('button', { name: 'Try USD Viewer 1.0.0 with Small' })).toBeNull();

    await waitFor(() => expect(statuses.some((s) => s.includes('/admin/capacity'))).toBe(true));
    expect(statuses.filter((s) => Number(s.split(' ')[0]) >= 400)).toEqual([]);
    // Lists only: nothing asks for one (version, profile) pair.
    expect(statuses.filter((s) => /\/profiles\/./.test(s))).toEqual([]);
  });

  it('filters the rows by application', async () => {
    catalog();
    renderRoute('/admin/profiles');
    const table = await screen.findByRole('table', { name: 'Profile availability' });
    await userEvent.type(screen.getByRole('textbox', { name: 'Filter applications' }), 'composer');
    expect(within(table).getAllByRole('rowheader')).toHaveLength(2);
  });

  it('stacks one card an application version on a narrow screen', async () => {
    narrowScreen();
    catalog();
    renderRoute('/admin/profiles');
    const list = await screen.findByRole('list', { name: 'Profile availability' });
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    const card = within(list).getAllByRole('listitem')[3]!;
    expect(within(card).getByRole('heading', { name: /^USD Viewer 1\.0\.0/ })).toBeInTheDocument();
    expect(within(card).getByText('does not apply')).toBeInTheDocument();
    expect(
      within(card).getByRole('button', { name: 'Try USD Viewer 1.0.0 with Default' }),
    ).toBeInTheDocument();
  });

  it('shows what holds the GPUs where the service tells', async () => {
    server.use(
      http.get(api('/cfg/apps'), () => HttpResponse.json({ count: 0, items: [] })),
      http.get(api('/cfg/apps/:id/versions/:version/profiles'), () => HttpResponse.json({ items: [] })),
      http.get(api('/admin/capacity'), () =>
        HttpResponse.json({
          capacity: 2,
          running: 1,
          warm: 1,
          queued: 0,
          by_profile: [{ profile: 'instant', running: 0, queued: 0, warm: 1, warm_target: 1 }],
        }),
      ),
    );
    renderRoute('/admin/profiles');
    const section = await screen.findByRole('region', { name: 'Capacity' });
    expect(section).toHaveTextContent(
      '1 of 2 GPUs in use by sessions, 1 held by warm applications, 0 free; 0 waiting.',
    );
    expect(within(section).getByRole('listitem')).toHaveTextContent(
      'instant: 0 running, 0 waiting, 1 of 1 warm',
    );
  });

  it('hides the capacity where the service lacks it', async () => {
    server.use(
      http.get(api('/cfg/apps'), () => HttpResponse.json({ count: 0, items: [] })),
      http.get(api('/cfg/apps/:id/versions/:version/profiles'), () => HttpResponse.json({ items: [] })),
    );
    renderRoute('/admin/profiles');
    await screen.findByText('No application version matches.');
    expect(screen.queryByRole('region', { name: 'Capacity' })).toBeNull();
  });
});
