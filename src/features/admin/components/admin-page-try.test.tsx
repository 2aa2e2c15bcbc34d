/** The admin page's Try: a launch of one version with one profile, watched to its first frame and ended. */
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { catalog, cell } from '../../../test/admin-catalog';
import { pending, ready, sessionId } from '../../../test/fixtures';
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
  it('a Try launches the version with the profile, waits for the first frame, ends the session and keeps the outcome', async () => {
    catalog();
    const { ended, posted } = launches();
    const first = renderRoute('/admin/profiles');
    const table = await screen.findByRole('table', { name: 'Profile availability' });
    await userEvent.click(within(table).getByRole('button', { name: 'Try USD Viewer 1.0.0 with Default' }));

    await waitFor(() => expect(ended).toEqual([sessionId]));
    expect(posted).toEqual([{ id: 'usd-viewer', version: '1.0.0', profile: 'default', purpose: 'try' }]);
    expect(cell(table, 'USD Viewer 1.0.0', 'Default')).toHaveTextContent(/first frame in \d+ ms, just now/);
    const works = within(cell(table, 'USD Viewer 1.0.0', 'Default'))
      .getByText('works')
      .closest('.MuiChip-root');
    expect(works).toHaveClass('MuiChip-colorSuccess');
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

  it('a Try the service refuses is an orange "refused" badge, its sentence in a tooltip', async () => {
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
    const badge = await within(refused).findByRole('button', {
      name: 'Why the service refused the Try of USD Composer 2.0.0 with Small',
    });
    expect(badge).toHaveClass('MuiChip-colorWarning');
    expect(badge).toHaveAccessibleDescription('Real programs are not started on this host.');
    expect(refused).toHaveTextContent(/^refusedjust nowTry$/);
    expect(ended).toEqual([]);
    expect(fake.made).toBe(0);
  });

  it('a failed Try is a red error cell, its reason in a tooltip, not in the column; the session is ended', async () => {
    catalog();
    const { ended } = launches();
    fake.behaviour = 'fail';
    renderRoute('/admin/profiles');
    const table = await screen.findByRole('table', { name: 'Profile availability' });
    await userEvent.click(within(table).getByRole('button', { name: 'Try USD Viewer 2.0.0 with Small' }));
    const failed = cell(table, 'USD Viewer 2.0.0', 'Small');
    const badge = await within(failed).findByRole('button', {
      name: 'Why the Try of USD Viewer 2.0.0 with Small failed',
    });
    expect(badge).toHaveTextContent('failed');
    expect(badge).toHaveClass('MuiChip-colorError');
    expect(within(badge).getByTestId('ErrorIcon')).toBeInTheDocument();
    expect(badge).toHaveAccessibleDescription('No video arrived.');
    // The reason is not in the cell, which keeps its width: a short label and when.
    expect(failed).toHaveTextContent(/^failedjust nowTry$/);
    await userEvent.hover(badge);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('No video arrived.');
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
      expect(cell(table, 'USD Viewer 2.0.0', 'Default')).toHaveTextContent(/^timed outjust nowTry$/),
    );
    expect(
      within(table).getByRole('button', { name: 'Why the Try of USD Viewer 2.0.0 with Default timed out' }),
    ).toHaveAccessibleDescription('No first frame within 60 s.');
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
    expect(cell(table, 'USD Viewer 2.0.0', 'Default')).toHaveTextContent(/^appliesnot tried yetTry$/);
    expect(Object.keys(localStorage).filter((k) => k.startsWith('streamgate.try:'))).toEqual([]);
  });
  it('Try all tries the applicable cells one after another, never two at once, and counts what works', async () => {
    catalog();
    // Each launch has its own session; USD Viewer 1.0.0 fails on its way up, the service refuses one launch.
    const posted: string[] = [];
    const alive = new Set<string>();
    const overlapping: string[] = [];
    const ids = new Map<string, string>();
    server.use(
      http.post(api('/stream'), async ({ request }) => {
        const body = (await request.json()) as { id: string; version: string; profile: string };
        const name = `${body.id} ${body.version} ${body.profile}`;
        posted.push(name);
        if (alive.size > 0) overlapping.push(`${name} beside ${[...alive].join(', ')}`);
        if (name === 'usd-composer 1.0.0 default')
          return HttpResponse.json({ detail: 'All 2 GPUs are in use.' }, { status: 503 });
        const id = `00000000-0000-4000-8000-00000000000${posted.length}`;
        ids.set(id, name);
        alive.add(id);
        return HttpResponse.json({ ...pending, id }, { status: 202 });
      }),
      http.get(api('/stream/:id'), ({ params }) =>
        ids.get(String(params.id)) === 'usd-viewer 1.0.0 default'
          ? HttpResponse.json(
              { detail: 'The session failed: USD Viewer 1.0.0 exited with code 1' },
              { status: 410 },
            )
          : HttpResponse.json({ ...ready, id: params.id }),
      ),
      http.delete(api('/stream/:id'), ({ params }) => {
        alive.delete(String(params.id));
        return new HttpResponse(null, { status: 204 });
      }),
    );
    renderRoute('/admin/profiles');
    const table = await screen.findByRole('table', { name: 'Profile availability' });
    const summary = screen.getByRole('status', { name: 'Summary of the Tries' });
    expect(summary).toHaveTextContent('0 of 6 work, 6 untested');

    await userEvent.click(screen.getByRole('button', { name: 'Try all' }));
    expect(screen.getByRole('status', { name: 'Try in progress' })).toHaveTextContent(
      'Trying 1 of 6: USD Composer 2.0.0 with Default',
    );
    expect(screen.getByRole('button', { name: 'Try all' })).toBeDisabled();
    await waitFor(() => expect(summary).toHaveTextContent('4 of 6 work, 1 failed, 1 refused'));
    expect(posted).toEqual([
      'usd-composer 2.0.0 default',
      'usd-composer 2.0.0 small',
      'usd-composer 1.0.0 default',
      'usd-viewer 2.0.0 default',
      'usd-viewer 2.0.0 small',
      'usd-viewer 1.0.0 default',
    ]);
    // Each launch waited for the session before it to end: its GPU was free again.
    expect(overlapping).toEqual([]);
    await waitFor(() => expect(alive.size).toBe(0));
    expect(
      within(cell(table, 'USD Viewer 1.0.0', 'Default')).getByRole('button', {
        name: 'Why the Try of USD Viewer 1.0.0 with Default failed',
      }),
    ).toHaveAccessibleDescription('USD Viewer 1.0.0 exited with code 1');
    expect(screen.getByRole('button', { name: 'Try all' })).toBeEnabled();
  });

  it('stopping a Try all ends its session and tries no more', async () => {
    catalog();
    const { ended, posted } = launches();
    fake.behaviour = 'hang';
    renderRoute('/admin/profiles');
    await screen.findByRole('table', { name: 'Profile availability' });
    await userEvent.click(screen.getByRole('button', { name: 'Try all' }));
    await waitFor(() => expect(fake.made).toBe(1));
    await userEvent.click(screen.getByRole('button', { name: 'Stop trying all and end the session' }));
    await waitFor(() => expect(ended).toEqual([sessionId]));
    expect(posted).toHaveLength(1);
    expect(screen.getByRole('status', { name: 'Summary of the Tries' })).toHaveTextContent(
      '0 of 6 work, 6 untested',
    );
  });
});
