/** The sessions page's ended sessions (CONTRACT §22): why each ended, in words, and an admin's filter by person. */
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../../lib/api-client';
import { renderRoute } from '../../../test/render';
import { sessionCatalog } from '../../../test/session-catalog';
import { api, http, HttpResponse, server } from '../../../test/server';

const HOUR = 3_600_000;

/** A session that ended `hoursAgo`, having run `minutes`, for `cause`, in the service's words. */
function ended(
  id: string,
  hoursAgo: number,
  minutes: number,
  end: Pick<Session, 'end_cause' | 'ended_by'> & { message: string; user?: string },
): Session {
  const endedAt = Date.now() - hoursAgo * HOUR;
  return {
    id,
    status: {
      condition: end.end_cause === 'failed' ? 'failed' : 'ended',
      message: end.message,
      status: false,
    },
    app: 'usd-viewer',
    version: '1.2.0',
    profile: 'default',
    user: end.user ?? 'alice',
    created_at: new Date(endedAt - minutes * 60_000).toISOString(),
    ended_at: new Date(endedAt).toISOString(),
    duration_s: minutes * 60,
    end_cause: end.end_cause,
    ...(end.ended_by ? { ended_by: end.ended_by } : {}),
  };
}

const PAST = [
  ended('11111111-1111-4111-8111-111111111111', 1, 25, {
    end_cause: 'idle',
    message: 'Ended after 10 min without a viewer',
  }),
  ended('22222222-2222-4222-8222-222222222222', 5, 0.5, {
    end_cause: 'failed',
    message: 'USD Viewer 1.2.0 exited with code 3 before it was ready',
  }),
  ended('33333333-3333-4333-8333-333333333333', 30, 125, {
    end_cause: 'deleted',
    ended_by: 'root',
    message: 'Ended by root',
  }),
  // Older than the page shows.
  ended('44444444-4444-4444-8444-444444444444', 31 * 24, 10, {
    end_cause: 'lifetime',
    message: 'Ended at 8 h',
  }),
];

/**
 * The service: no running sessions; the ended ones newest first, of one person when asked (`user`); `admin`:
 * whether the caller may read the audit log. Returns the `user` of each request for ended sessions.
 */
function service({ admin }: { admin: boolean }) {
  const asked: (string | null)[] = [];
  server.use(
    http.get(api('/stream'), ({ request }) => {
      const query = new URL(request.url).searchParams;
      if (query.get('state') !== 'ended')
        return HttpResponse.json({ offset: 0, limit: 500, count: 0, items: [] });
      const user = query.get('user');
      asked.push(user);
      const items = PAST.filter((s) => user === null || s.user === user);
      return HttpResponse.json({ offset: 0, limit: 50, count: items.length, items });
    }),
    http.get(api('/admin/audit'), () =>
      admin
        ? HttpResponse.json({ count: 0, truncated: false, items: [] })
        : HttpResponse.json({ detail: 'The audit log is for administrators.' }, { status: 403 }),
    ),
  );
  return asked;
}

/** The rows of the ended sessions' table, by the session ids they show. */
async function endedRows() {
  const table = await screen.findByRole('table', { name: 'Ended' });
  return (id: string) =>
    within(table)
      .getByRole('button', { name: `Copy session id ${id}` })
      .closest('tr')!;
}

describe('ended sessions', { timeout: 30_000 }, () => {
  it('lists what ended in the last 30 days, newest first, with its times, length and why in words', async () => {
    sessionCatalog();
    service({ admin: false });
    renderRoute('/sessions');
    const row = await endedRows();
    const table = screen.getByRole('table', { name: 'Ended' });
    const ids = () =>
      within(table)
        .getAllByRole('row')
        .slice(1)
        .map((r) => within(r).getAllByRole('cell')[0]!.textContent);
    // The catalog's names come a moment later.
    await waitFor(() =>
      expect(ids()).toEqual([
        'USD Viewer 1.2.0 (Default)11111111',
        'USD Viewer 1.2.0 (Default)22222222',
        'USD Viewer 1.2.0 (Default)33333333',
      ]),
    );
    const idle = row('11111111-1111-4111-8111-111111111111');
    expect(idle).toHaveTextContent('25 min');
    expect(idle).toHaveTextContent('No viewer');
    expect(idle).toHaveTextContent('Ended after 10 min without a viewer');
    const failed = row('22222222-2222-4222-8222-222222222222');
    expect(failed).toHaveTextContent('under a minute');
    expect(failed).toHaveTextContent('Failed');
    // A failure is an error: red, with an error icon, as on the running list.
    const chip = within(failed).getByText('Failed').closest('.MuiChip-root')!;
    expect(chip).toHaveClass('MuiChip-colorError');
    expect(within(chip as HTMLElement).getByTestId('ErrorIcon')).toBeInTheDocument();
    expect(within(idle).getByText('No viewer').closest('.MuiChip-root')).toHaveClass('MuiChip-colorDefault');
    expect(failed).toHaveTextContent('USD Viewer 1.2.0 exited with code 3 before it was ready');
    const deleted = row('33333333-3333-4333-8333-333333333333');
    expect(deleted).toHaveTextContent('2 h 5 min');
    expect(deleted).toHaveTextContent('Ended by root');
    expect(
      screen.queryByRole('button', { name: 'Copy session id 44444444-4444-4444-8444-444444444444' }),
    ).not.toBeInTheDocument();
    // Not an admin: their own sessions, without a filter or a column of people.
    expect(screen.getByText(/^Your sessions that ended/)).toBeInTheDocument();
    expect(screen.queryByRole('search', { name: 'Ended sessions of one person' })).not.toBeInTheDocument();
    expect(within(table).queryByRole('columnheader', { name: 'Person' })).not.toBeInTheDocument();
  });

  it('lets an admin see one person’s ended sessions, and everyone’s again', async () => {
    sessionCatalog();
    const asked = service({ admin: true });
    const { router } = renderRoute('/sessions');
    await endedRows();
    const filter = await screen.findByRole('search', { name: 'Ended sessions of one person' });
    expect(screen.getByRole('columnheader', { name: 'Person' })).toBeInTheDocument();

    await userEvent.type(within(filter).getByRole('textbox', { name: 'Person' }), 'root{Enter}');
    await waitFor(() => expect(asked.at(-1)).toBe('root'));
    expect(router.state.location.search).toBe('?person=root');
    expect(await screen.findByText('Nothing has ended in the last 30 days.')).toBeInTheDocument();
    expect(screen.getByText(/^Sessions of root that ended/)).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Everyone' }));
    await waitFor(() => expect(router.state.location.search).toBe(''));
    expect(asked).toEqual([null, 'root']);
    expect(
      await screen.findByRole('button', { name: 'Copy session id 11111111-1111-4111-8111-111111111111' }),
    ).toBeInTheDocument();
  });

  it('says nothing has ended where the service ignores `state` and lists what runs', async () => {
    sessionCatalog();
    server.use(
      http.get(api('/stream'), () =>
        HttpResponse.json({
          offset: 0,
          limit: 500,
          count: 1,
          items: [{ id: '55555555-5555-4555-8555-555555555555', status: { condition: 'ready' } }],
        }),
      ),
    );
    renderRoute('/sessions');
    expect(await screen.findByText('Nothing has ended in the last 30 days.')).toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Ended' })).not.toBeInTheDocument();
  });
});
