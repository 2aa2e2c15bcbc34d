/** The admin's capacity page: the capacity summary, the door's figures polled every 5 s, and the ways between pages. */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { catalog } from '../../../test/admin-catalog';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';
import CapacityPage from './capacity-page';

afterEach(() => {
  vi.useRealTimers();
  server.events.removeAllListeners();
});

/** The service's capacity with its door, the relay having carried `relayed` bytes so far. */
function capacity(relayed: number, door: Record<string, unknown> = {}) {
  return {
    capacity: 2,
    running: 1,
    warm: 0,
    queued: 0,
    by_profile: [],
    door: {
      signaling: 'auto',
      relay: 'embedded',
      relayed_viewers: 2,
      relayed_flows: 3,
      relay_bytes_in: relayed / 4,
      relay_bytes_out: (3 * relayed) / 4,
      offers: 17,
      ...door,
    },
  };
}

/** The page alone on fake time (its polls every 5 s are moved on by hand). */
function renderPage() {
  vi.useFakeTimers();
  return render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter initialEntries={['/admin/capacity']}>
        <CapacityPage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const figure = (door: HTMLElement, term: string) =>
  door.querySelector(`[data-figure="${term}"]`)?.textContent;

describe('capacity page', () => {
  it('shows the capacity and the door, and the relay’s bandwidth from two successive polls', async () => {
    let polls = 0;
    server.use(
      // 250 000 bytes more at each poll, 5 s apart: 400 kbit/s.
      http.get(api('/admin/capacity'), () => HttpResponse.json(capacity(1_000_000 + 250_000 * polls++))),
    );
    renderPage();
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(screen.getByRole('heading', { level: 1, name: 'Capacity and the door' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Capacity' })).toHaveTextContent(
      '1 of 2 GPUs in use by sessions, 0 held by warm applications, 1 free; 0 waiting.',
    );
    const door = screen.getByRole('region', { name: 'Door' });
    expect(figure(door, 'Signaling')).toBe(
      'through the service where a session runs on another host, straight to the session on this one (auto)',
    );
    expect(figure(door, 'Relay')).toBe('embedded coturn');
    expect(figure(door, 'Relayed viewers now')).toBe('2');
    expect(figure(door, 'Relayed flows')).toBe('3');
    expect(figure(door, 'Offers through the door')).toBe('17');
    expect(figure(door, 'Relay bandwidth')).toBe('measured from the next reading (every 5 s)');
    expect(within(door).getByText('Relay bandwidth').tagName).toBe('DT');

    await act(() => vi.advanceTimersByTimeAsync(5_000));
    await act(() => vi.advanceTimersByTimeAsync(100));
    expect(polls).toBe(2);
    expect(figure(door, 'Relay bandwidth')).toBe('400 kbit/s');
  });

  it('names the site’s TURN server, or why there is no relay', async () => {
    let door: Record<string, unknown> = { relay: 'site', signaling: 'door' };
    server.use(http.get(api('/admin/capacity'), () => HttpResponse.json(capacity(0, door))));
    renderPage();
    await act(() => vi.advanceTimersByTimeAsync(0));
    const region = screen.getByRole('region', { name: 'Door' });
    expect(figure(region, 'Relay')).toBe('the site’s TURN server');
    expect(figure(region, 'Signaling')).toBe('always through the service (door)');
    door = {
      relay: 'none',
      relay_problem: 'coturn is not installed (turnserver not found).',
      signaling: 'direct',
    };
    await act(() => vi.advanceTimersByTimeAsync(5_100));
    expect(figure(region, 'Relay')).toBe('none: coturn is not installed (turnserver not found).');
    expect(figure(region, 'Signaling')).toBe('straight to the session’s own host (direct)');
  });

  it('shows health worst first, each with an icon that says how it stands', async () => {
    const door = { relay: 'none', relay_problem: 'coturn is not installed (turnserver not found).' };
    server.use(
      http.get(api('/admin/capacity'), () => HttpResponse.json(capacity(0, door))),
      http.get(api('/stream'), () => HttpResponse.json({ count: 0, items: [] })),
    );
    renderPage();
    await act(() => vi.advanceTimersByTimeAsync(0));
    const checks = within(screen.getByRole('region', { name: 'Health' })).getAllByRole('listitem');
    expect(checks.map((item) => item.dataset.level)).toEqual(['problem', 'ok', 'ok']);
    expect(checks[0]).toHaveTextContent('Relay (TURN)coturn is not installed (turnserver not found).');
    expect(within(checks[0]!).getByLabelText('Problem')).toContainElement(checks[0]!.querySelector('svg'));
    expect(within(checks[1]!).getByLabelText('Good')).toBeInTheDocument();
  });

  it('says so where the service does not tell its capacity', async () => {
    renderPage();
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(screen.getByText(/The service does not tell its capacity here/)).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Door' })).toBeNull();
  });

  it('is reached from the profiles (where /admin still goes), and both link to the connection check', async () => {
    catalog();
    const { router } = renderRoute('/admin');
    const links = await screen.findByRole('navigation', { name: 'Admin pages' });
    expect(router.state.location.pathname).toBe('/admin/profiles');
    expect(within(links).getByRole('link', { name: 'Profile availability' })).toHaveAttribute(
      'aria-current',
      'page',
    );
    expect(within(links).getByRole('link', { name: 'Connection check' })).toHaveAttribute('href', '/check');
    await userEvent.click(within(links).getByRole('link', { name: 'Capacity and the door' }));
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Capacity and the door' }),
    ).toBeInTheDocument();
    const there = screen.getByRole('navigation', { name: 'Admin pages' });
    expect(within(there).getByRole('link', { name: 'Connection check' })).toHaveAttribute('href', '/check');
    expect(within(there).getByRole('link', { name: 'Profile availability' })).toHaveAttribute(
      'href',
      '/admin/profiles',
    );
  });
});
