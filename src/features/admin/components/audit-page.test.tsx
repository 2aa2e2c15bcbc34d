/** The admin's audit log page (CONTRACT §22): its filters, its CSV download, and who sees it. */
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuditEvent } from '../../../lib/api/list-audit-events';
import { DEFAULT_CONFIG, setFileConfig } from '../../../lib/config';
import { accessQueries } from '../../../lib/queries/access-queries';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';

// jsdom has no object URLs: the download test makes its own.
const { createObjectURL, revokeObjectURL } = URL;
afterEach(() => {
  vi.restoreAllMocks();
  URL.createObjectURL = createObjectURL;
  URL.revokeObjectURL = revokeObjectURL;
});

const EVENTS: AuditEvent[] = [
  {
    time: '2025-02-01T10:05:00Z',
    user: 'alice',
    action: 'end',
    session: '11111111-1111-4111-8111-111111111111',
    detail: { app: 'usd-viewer', version: '1.2.0' },
  },
  {
    time: '2025-02-01T10:00:00Z',
    user: 'alice',
    action: 'launch',
    session: '11111111-1111-4111-8111-111111111111',
    detail: { app: 'usd-viewer', version: '1.2.0', profile: 'default' },
  },
  { time: '2025-02-01T09:00:00Z', user: 'mallory', action: 'sign-in-failed', session: null, detail: {} },
];

const CSV = 'time,user,action,session,detail\r\n2025-02-01T10:05:00Z,alice,end,1111,{}\r\n';

/** The audit log of an admin: records each request's query, `Accept` and credential. */
function auditLog() {
  const requests: { query: URLSearchParams; accept: string | null; credential: string | null }[] = [];
  server.use(
    http.get(api('/admin/audit'), ({ request }) => {
      const query = new URL(request.url).searchParams;
      const accept = request.headers.get('Accept');
      requests.push({ query, accept, credential: request.headers.get('Authorization') });
      if (accept === 'text/csv')
        return new HttpResponse(CSV, { headers: { 'Content-Type': 'text/csv; charset=utf-8' } });
      const action = query.get('action');
      const items = EVENTS.filter((e) => action === null || e.action === action);
      return HttpResponse.json({ count: items.length, truncated: query.get('limit') === '1', items });
    }),
  );
  return requests;
}

describe('audit page', { timeout: 30_000 }, () => {
  it('shows the events newest first, in words, and is in the admin pages for an admin', async () => {
    auditLog();
    renderRoute('/admin/audit');
    const table = await screen.findByRole('table', { name: 'Audit log' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getAllByRole('cell')[2]!.textContent)).toEqual([
      'End',
      'Launch',
      'Sign-in failed',
    ]);
    expect(rows[1]).toHaveTextContent('app: usd-viewer, version: 1.2.0, profile: default');
    expect(rows[2]).toHaveTextContent('mallory');
    const nav = screen.getByRole('navigation', { name: 'Admin pages' });
    expect(await within(nav).findByRole('link', { name: 'Audit log' })).toHaveAttribute(
      'aria-current',
      'page',
    );
  });

  it('filters by person, action and day, and keeps the filters in the address', async () => {
    const requests = auditLog();
    const { router } = renderRoute('/admin/audit');
    await screen.findByRole('table', { name: 'Audit log' });
    const form = screen.getByRole('search', { name: 'Filter the audit log' });
    await userEvent.type(within(form).getByRole('textbox', { name: 'Person' }), 'alice');
    await userEvent.click(within(form).getByRole('combobox', { name: 'Action' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Launch' }));
    await userEvent.type(within(form).getByLabelText('Since'), '2025-01-31');
    await userEvent.click(within(form).getByRole('button', { name: 'Apply filters' }));

    await waitFor(() => expect(requests.at(-1)?.query.get('action')).toBe('launch'));
    const query = requests.at(-1)!.query;
    expect(query.get('user')).toBe('alice');
    // The start of that day where the person is.
    expect(query.get('since')).toBe(new Date(2025, 0, 31).toISOString());
    expect(router.state.location.search).toBe('?person=alice&action=launch&since=2025-01-31');
    const table = await screen.findByRole('table', { name: 'Audit log' });
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(2));
  });

  it('downloads the filtered events as CSV with the credential in a header, never in the address', async () => {
    setFileConfig({ ...DEFAULT_CONFIG, token: 'admin-secret' });
    const requests = auditLog();
    const saved: { name: string; href: string }[] = [];
    const blobs = new Map<string, Blob>();
    URL.createObjectURL = (blob: Blob) => {
      const url = `blob:portal/${blobs.size}`;
      blobs.set(url, blob);
      return url;
    };
    URL.revokeObjectURL = () => undefined;
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push({ name: this.download, href: this.href });
    });

    renderRoute('/admin/audit?action=end');
    await screen.findByRole('table', { name: 'Audit log' });
    await userEvent.click(screen.getByRole('button', { name: 'Download CSV' }));

    await waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]!.name).toMatch(/^streamgate-audit-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(await blobs.get(saved[0]!.href)!.text()).toBe(CSV);
    const csv = requests.find((r) => r.accept === 'text/csv')!;
    expect(csv.query.get('action')).toBe('end');
    expect(csv.credential).toBe('Bearer admin-secret');
    expect(csv.query.toString()).not.toContain('admin-secret');
    expect(saved[0]!.href).not.toContain('admin-secret');
  });

  it('is not offered to a person who is not an admin, and says why if they come anyway', async () => {
    server.use(
      http.get(api('/admin/audit'), () =>
        HttpResponse.json(
          { detail: 'The audit log is for administrators; use a token with the admin role.' },
          { status: 403 },
        ),
      ),
      http.get(api('/admin/capacity'), () => HttpResponse.json({ detail: 'Admins only.' }, { status: 403 })),
    );
    const { router, queryClient } = renderRoute('/admin/capacity');
    const nav = await screen.findByRole('navigation', { name: 'Admin pages' });
    expect(await within(nav).findByRole('link', { name: 'Capacity and the door' })).toBeInTheDocument();
    // The service has answered whether they are an admin, and the link is not there.
    await waitFor(() =>
      expect(queryClient.getQueryState(accessQueries.admin().queryKey)?.status).toBe('success'),
    );
    expect(within(nav).queryByRole('link', { name: 'Audit log' })).not.toBeInTheDocument();

    await router.navigate('/admin/audit');
    expect(await screen.findByText(/The audit log is for administrators/)).toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Audit log' })).not.toBeInTheDocument();
  });
});
