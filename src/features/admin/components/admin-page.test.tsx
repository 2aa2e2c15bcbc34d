import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { apps, pending, profiles, ready, sessionId } from '../../../test/fixtures';
import { narrowScreen } from '../../../test/narrow-screen';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';
import { outcomeKey } from '../api/try-outcomes';

// jsdom has no WebRTC: a stand-in player plays, fails or waits as each test says.
const fake = vi.hoisted(() => ({
  behaviour: 'play' as 'play' | 'fail' | 'hang',
  made: 0,
  disconnected: 0,
}));
vi.mock(import('../../../player'), async (original) => {
  const real = await original();
  type Listener = (state: unknown) => void;
  class Player {
    private listeners: Listener[] = [];
    constructor() {
      fake.made += 1;
    }
    addEventListener(_type: 'state', listener: Listener) {
      this.listeners.push(listener);
      return () => (this.listeners = this.listeners.filter((l) => l !== listener));
    }
    connect() {
      const emit = (state: unknown) => this.listeners.forEach((l) => l(state));
      emit({ kind: 'connecting', attempt: 1 });
      if (fake.behaviour === 'play') setTimeout(() => emit({ kind: 'playing' }), 0);
      if (fake.behaviour === 'fail')
        setTimeout(() => emit({ kind: 'failed', reason: 'No video arrived.' }), 0);
    }
    disconnect() {
      fake.disconnected += 1;
    }
  }
  return { ...real, Player: Player as unknown as typeof real.Player };
});

const viewer = apps[0]!;
const composer = apps[1]!;

/**
 * USD Composer and USD Viewer, each with 1.0.0 and 2.0.0 (listed oldest first, as a real deployment may);
 * Default applies everywhere, Small only to 2.0.0. Every answer is recorded, to find any that failed.
 */
function catalog() {
  const statuses: string[] = [];
  server.events.on('response:mocked', ({ request, response }) =>
    statuses.push(`${response.status} ${request.method} ${new URL(request.url).pathname}`),
  );
  server.use(
    http.get(api('/cfg/apps'), () => HttpResponse.json({ count: 2, items: [viewer, composer] })),
    http.get(api('/cfg/apps/:id/versions'), () =>
      HttpResponse.json({ count: 2, items: [{ version: '1.0.0' }, { version: '2.0.0' }] }),
    ),
    http.get(api('/cfg/apps/:id/versions/:version/profiles'), ({ params }) => {
      const items = params.version === '1.0.0' ? profiles.slice(0, 1) : profiles;
      return HttpResponse.json({ count: items.length, items });
    }),
    http.get(api('/admin/capacity'), () =>
      HttpResponse.json({ capacity: 2, running: 0, warm: 0, queued: 0, by_profile: [] }),
    ),
  );
  return statuses;
}

/** A launch that is pending at first and ready at the next poll; records the sessions ended. */
function launches() {
  const ended: string[] = [];
  const posted: unknown[] = [];
  server.use(
    http.post(api('/stream'), async ({ request }) => {
      posted.push(await request.json());
      return HttpResponse.json(pending, { status: 202 });
    }),
    http.get(api('/stream/:id'), () => HttpResponse.json(ready)),
    http.delete(api('/stream/:id'), ({ params }) => {
      ended.push(String(params.id));
      return new HttpResponse(null, { status: 204 });
    }),
  );
  return { ended, posted };
}

/** The cell of `table` in the row whose header starts with `row` and the column whose header starts with `column`. */
function cell(table: HTMLElement, row: string, column: string): HTMLElement {
  const headers = within(table).getAllByRole('columnheader');
  const index = headers.findIndex((h) => h.textContent?.startsWith(column));
  const tr = within(table)
    .getAllByRole('row')
    .find((r) => within(r).queryByRole('rowheader')?.textContent?.startsWith(row));
  if (index < 0 || !tr) throw new Error(`No cell ${row} / ${column}`);
  return tr.querySelectorAll<HTMLElement>('th, td')[index]!;
}

beforeEach(() => {
  fake.behaviour = 'play';
  fake.made = 0;
  fake.disconnected = 0;
});
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
    expect(cell(table, 'USD Viewer 1.0.0', 'Default')).toHaveTextContent(/^availableTry$/);
    expect(cell(table, 'USD Viewer 2.0.0', 'Default')).toHaveTextContent(
      'availablefirst frame in 812 ms, 2 min ago',
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

  it('a Try launches the version with the profile, waits for the first frame, ends the session and keeps the outcome', async () => {
    catalog();
    const { ended, posted } = launches();
    const first = renderRoute('/admin/profiles');
    const table = await screen.findByRole('table', { name: 'Profile availability' });
    await userEvent.click(within(table).getByRole('button', { name: 'Try USD Viewer 1.0.0 with Default' }));

    await waitFor(() => expect(ended).toEqual([sessionId]));
    expect(posted).toEqual([{ id: 'usd-viewer', version: '1.0.0', profile: 'default' }]);
    expect(cell(table, 'USD Viewer 1.0.0', 'Default')).toHaveTextContent(/first frame in \d+ ms, just now/);
    expect(fake.disconnected).toBeGreaterThan(0);
    const kept: unknown = JSON.parse(
      localStorage.getItem(outcomeKey({ app: 'usd-viewer', version: '1.0.0', profile: 'default' }))!,
    );
    expect(kept).toMatchObject({ kind: 'frame' });

    // The outcome is the browser's: it is there when the page opens again.
    first.unmount();
    renderRoute('/admin/profiles');
    const again = await screen.findByRole('table', { name: 'Profile availability' });
    expect(cell(again, 'USD Viewer 1.0.0', 'Default')).toHaveTextContent(/first frame in \d+ ms/);
  });

  it('a Try the service refuses shows its sentence in place of "available"', async () => {
    catalog();
    const { ended } = launches();
    server.use(
      http.post(api('/stream'), () =>
        HttpResponse.json({ detail: 'Real programs are not started on this host.' }, { status: 503 }),
      ),
    );
    renderRoute('/admin/profiles');
    const table = await screen.findByRole('table', { name: 'Profile availability' });
    await userEvent.click(within(table).getByRole('button', { name: 'Try USD Composer 2.0.0 with Small' }));
    const refused = cell(table, 'USD Composer 2.0.0', 'Small');
    await waitFor(() =>
      expect(refused).toHaveTextContent('refused: Real programs are not started on this host.tried just now'),
    );
    expect(ended).toEqual([]);
    expect(fake.made).toBe(0);
  });

  it('a Try whose player fails says why, and ends the session', async () => {
    catalog();
    const { ended } = launches();
    fake.behaviour = 'fail';
    renderRoute('/admin/profiles');
    const table = await screen.findByRole('table', { name: 'Profile availability' });
    await userEvent.click(within(table).getByRole('button', { name: 'Try USD Viewer 2.0.0 with Small' }));
    await waitFor(() =>
      expect(cell(table, 'USD Viewer 2.0.0', 'Small')).toHaveTextContent('failed: No video arrived.'),
    );
    expect(ended).toEqual([sessionId]);
  });

  it('a Try with no first frame in 60 s times out, and ends its session', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    catalog();
    const { ended } = launches();
    fake.behaviour = 'hang';
    renderRoute('/admin/profiles');
    const table = await screen.findByRole('table', { name: 'Profile availability' });
    fireEvent.click(within(table).getByRole('button', { name: 'Try USD Viewer 2.0.0 with Default' }));
    // While it runs it shows what it does, and every other Try waits for it.
    const status = screen.getByRole('status', { name: 'Try in progress' });
    expect(status).toHaveTextContent('Trying USD Viewer 2.0.0 with Default');
    expect(within(table).getByRole('button', { name: 'Try USD Viewer 1.0.0 with Default' })).toBeDisabled();
    await waitFor(() => expect(fake.made).toBe(1));
    expect(within(status).getByText('Connecting to the stream')).toBeInTheDocument();

    await act(() => vi.advanceTimersByTimeAsync(60_000));
    await waitFor(() =>
      expect(cell(table, 'USD Viewer 2.0.0', 'Default')).toHaveTextContent('timed out after 60 s, just now'),
    );
    expect(ended).toEqual([sessionId]);
    expect(within(table).getByRole('button', { name: 'Try USD Viewer 1.0.0 with Default' })).toBeEnabled();
  });

  it('Cancel ends the session of the Try and records nothing', async () => {
    catalog();
    const { ended } = launches();
    fake.behaviour = 'hang';
    renderRoute('/admin/profiles');
    const table = await screen.findByRole('table', { name: 'Profile availability' });
    await userEvent.click(within(table).getByRole('button', { name: 'Try USD Viewer 2.0.0 with Default' }));
    await waitFor(() => expect(fake.made).toBe(1));
    // The button keeps the focus: it has become the Cancel of its own Try.
    const cancel = within(table).getByRole('button', {
      name: 'Cancel the try of USD Viewer 2.0.0 with Default',
    });
    expect(cancel).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(ended).toEqual([sessionId]));
    expect(cell(table, 'USD Viewer 2.0.0', 'Default')).toHaveTextContent(/^availableTry$/);
    expect(Object.keys(localStorage).filter((k) => k.startsWith('streamgate.try:'))).toEqual([]);
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
