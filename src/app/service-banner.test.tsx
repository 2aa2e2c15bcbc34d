import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { reportReachable } from '../lib/service-status';
import { probeDelay } from './use-service-probe';
import { answered, useFakeTime } from '../test/fake-time';
import { apps } from '../test/fixtures';
import { renderRoute } from '../test/render';
import { api, http, HttpResponse, server } from '../test/server';

const bannerText = /Cannot reach the Streamgate service at http:\/\/[^ ]+\/api\. Retrying…/;
/** A guard, not a measurement: on a busy machine a refetch and its render can take longer than the default second. */
const shown = { timeout: 5_000 };

/** /cfg/apps answers from `state`: down (network failure), a proxy's 502 page, or the given applications. */
function serveCatalog(state: { mode: 'up' | 'down' | 'proxy'; items: typeof apps; probes: number }) {
  server.use(
    http.get(api('/cfg/apps'), ({ request }) => {
      if (new URL(request.url).searchParams.get('tags') === 'streamgate-probe') state.probes += 1;
      if (state.mode === 'down') return HttpResponse.error();
      if (state.mode === 'proxy')
        return new HttpResponse('<html>Bad gateway</html>', {
          status: 502,
          headers: { 'Content-Type': 'text/html' },
        });
      return HttpResponse.json({ count: state.items.length, items: state.items });
    }),
  );
}

describe('service banner', { timeout: 30_000 }, () => {
  // The status is module state; a test that ends during an outage must not leave it to the next one.
  afterEach(() => reportReachable());
  // The catalog's code is loaded on real time once, so that tests on fake time find it loaded.
  beforeAll(() => import('../features/catalog/components/catalog-page'), 30_000);

  it('appears on a network failure, keeps the data shown, and goes when the service answers again', async () => {
    useFakeTime();
    const state = { mode: 'up' as 'up' | 'down' | 'proxy', items: apps.slice(0, 2), probes: 0 };
    serveCatalog(state);
    const { queryClient } = renderRoute('/apps');
    await answered(() => expect(screen.getByRole('link', { name: 'USD Viewer' })).toBeInTheDocument());
    expect(screen.queryByText(bannerText)).not.toBeInTheDocument();

    state.mode = 'down';
    await queryClient.refetchQueries({ queryKey: ['apps'] });
    await answered(() => expect(screen.getByText(bannerText)).toBeInTheDocument());
    // The data it had stays on the page, and the banner replaces the refetch's notice.
    expect(screen.getByRole('link', { name: 'USD Viewer' })).toBeInTheDocument();
    expect(screen.queryByText(/Could not refresh/)).not.toBeInTheDocument();

    // The service comes back with a new application: no user action, the probe finds it and pages refetch.
    // The first probe comes after its pause, not before.
    state.items = apps;
    state.mode = 'up';
    await act(() => vi.advanceTimersByTimeAsync(probeDelay(0) - 1));
    expect(state.probes).toBe(0);
    expect(screen.getByText(bannerText)).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(1));
    await answered(() => expect(screen.queryByText(bannerText)).not.toBeInTheDocument());
    expect(state.probes).toBe(1);
    await answered(() => expect(screen.getByRole('link', { name: 'Evil App' })).toBeInTheDocument());
  });

  it('treats a proxy 502 as the service being down, and Retry now probes at once', async () => {
    const state = { mode: 'up' as 'up' | 'down' | 'proxy', items: apps, probes: 0 };
    serveCatalog(state);
    const { queryClient } = renderRoute('/apps');
    expect(await screen.findByRole('link', { name: 'USD Viewer' })).toBeInTheDocument();
    state.mode = 'proxy';
    await queryClient.refetchQueries({ queryKey: ['apps'] });
    expect(await screen.findByText(bannerText, undefined, shown)).toBeInTheDocument();

    const before = state.probes;
    await userEvent.click(screen.getByRole('button', { name: 'Retry now' }));
    await waitFor(() => expect(state.probes).toBeGreaterThan(before));
    expect(screen.getByText(bannerText)).toBeInTheDocument();

    state.mode = 'up';
    await userEvent.click(await screen.findByRole('button', { name: 'Retry now' }));
    await waitFor(() => expect(screen.queryByText(bannerText)).not.toBeInTheDocument());
    expect(screen.getByRole('link', { name: 'USD Viewer' })).toBeInTheDocument();
  });

  it('keeps Retry now as it is while the background probes run, and waits on it only when clicked', async () => {
    useFakeTime();
    const state = { mode: 'up' as 'up' | 'down' | 'proxy', items: apps, probes: 0 };
    serveCatalog(state);
    const { queryClient } = renderRoute('/apps');
    await answered(() => expect(screen.getByRole('link', { name: 'USD Viewer' })).toBeInTheDocument());
    let release: () => void = () => undefined;
    let held = false;
    // The service goes down; its probes answer only when released, so that one in flight can be seen.
    server.use(
      http.get(api('/cfg/apps'), async ({ request }) => {
        if (new URL(request.url).searchParams.get('tags') !== 'streamgate-probe') return HttpResponse.error();
        state.probes += 1;
        held = true;
        await new Promise<void>((resolve) => (release = resolve));
        held = false;
        return HttpResponse.error();
      }),
    );
    await queryClient.refetchQueries({ queryKey: ['apps'] });
    await answered(() => expect(screen.getByText(bannerText)).toBeInTheDocument());
    const button = screen.getByRole('button', { name: 'Retry now' });
    // A background probe is under way (the first comes after its pause): the button stays as it was.
    expect(state.probes).toBe(0);
    await act(() => vi.advanceTimersByTimeAsync(probeDelay(0)));
    await answered(() => expect(held).toBe(true));
    expect(state.probes).toBe(1);
    expect(button).toBeEnabled();
    release();
    await answered(() => expect(held).toBe(false));
    // The person's own probe, at once: the button waits for it. (fireEvent: user-event's clicks end by waiting
    // on a timer, which Testing Library does not know to be fake under vitest.)
    fireEvent.click(button);
    await answered(() => expect(held).toBe(true));
    expect(state.probes).toBe(2);
    expect(screen.getByRole('button', { name: 'Retry now' })).toBeDisabled();
    release();
    await answered(() => expect(screen.getByRole('button', { name: 'Retry now' })).toBeEnabled());
  });

  it('shows no banner for answers of the service itself, errors included', async () => {
    server.use(
      http.get(api('/cfg/apps'), () =>
        HttpResponse.json({ detail: 'Queue full.' }, { status: 503, headers: { 'Retry-After': '5' } }),
      ),
    );
    renderRoute('/apps');
    expect(await screen.findByRole('alert')).toHaveTextContent('Queue full.');
    expect(screen.queryByText(bannerText)).not.toBeInTheDocument();
  });
});
