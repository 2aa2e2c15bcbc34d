import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ready, sessionId } from '../../../test/fixtures';
import { api, http, HttpResponse, server } from '../../../test/server';
import type { Session } from '../../../lib/api-client';
import { useWatchedSession } from '../../../lib/queries/session-queries';
import { formatLeft, LifetimeCountdown } from './lifetime-countdown';

const START = Date.parse('2026-01-05T09:00:00Z');
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** The service: one ready session ending at `endsAt`, extendable to `latest`; the extensions it was asked for. */
function service(endsAt: number, latest: number, refuse?: Response) {
  const asked: unknown[] = [];
  let ends = endsAt;
  const body = (): Session => ({ ...ready, ends_at: iso(ends), latest_end_at: iso(latest) });
  server.use(
    http.get(api('/stream/:id'), () => HttpResponse.json(body())),
    http.post(api('/stream/:id/extend'), async ({ request }) => {
      asked.push(await request.text());
      if (refuse) return refuse;
      ends = Math.min(ends + 30 * MIN, latest);
      return HttpResponse.json(body());
    }),
  );
  return asked;
}

/** The countdown as the viewer shows it: over the session the page follows. */
function Viewer({ canExtend }: { canExtend: boolean }) {
  const session = useWatchedSession(sessionId).data?.session;
  return session ? <LifetimeCountdown session={session} canExtend={canExtend} /> : null;
}

function renderCountdown(canExtend = true) {
  vi.useFakeTimers({ now: START });
  const client = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  return render(
    <QueryClientProvider client={client}>
      <Viewer canExtend={canExtend} />
    </QueryClientProvider>,
  );
}

const pass = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

afterEach(() => vi.useRealTimers());

describe('LifetimeCountdown', () => {
  it('says nothing until 5 minutes before the end, then counts down in the warning colour', async () => {
    service(START + 10 * MIN, START + 60 * MIN);
    renderCountdown();
    await pass(0);
    expect(screen.queryByRole('timer')).not.toBeInTheDocument();
    await pass(5 * MIN);
    const timer = screen.getByRole('timer', { name: 'The session ends in 5:00' });
    expect(timer).toHaveTextContent('Ends in 5:00');
    expect(timer).toHaveClass('MuiChip-colorWarning');
    await pass(28_000);
    expect(screen.getByRole('timer')).toHaveTextContent('Ends in 4:32');
  });

  it('extends the session on Extend: the countdown goes, as the end moved past the warning', async () => {
    const asked = service(START + 4 * MIN, START + 60 * MIN);
    renderCountdown();
    await pass(0);
    expect(screen.getByRole('timer')).toHaveTextContent('Ends in 4:00');
    fireEvent.click(screen.getByRole('button', { name: 'Extend' }));
    await pass(0);
    expect(asked).toEqual(['']);
    expect(screen.queryByRole('timer')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Extend' })).not.toBeInTheDocument();
  });

  it('offers no Extend to a watcher, nor once the session runs to its maximum', async () => {
    service(START + 3 * MIN, START + 60 * MIN);
    const { unmount } = renderCountdown(false);
    await pass(0);
    expect(screen.getByRole('timer')).toHaveTextContent('Ends in 3:00');
    expect(screen.queryByRole('button', { name: 'Extend' })).not.toBeInTheDocument();
    expect(screen.queryByText(/maximum lifetime/)).not.toBeInTheDocument();
    unmount();
    vi.useRealTimers();

    service(START + 3 * MIN, START + 3 * MIN);
    renderCountdown(true);
    await pass(0);
    expect(screen.getByRole('timer')).toHaveTextContent('Ends in 3:00');
    expect(screen.queryByRole('button', { name: 'Extend' })).not.toBeInTheDocument();
    expect(screen.getByText('It runs to its maximum lifetime already.')).toBeInTheDocument();
  });

  it("says the service's refusal in its own words, and keeps counting", async () => {
    const refusal = "This cluster does not let the session's job run longer.";
    service(START + 2 * MIN, START + 60 * MIN, HttpResponse.json({ detail: refusal }, { status: 409 }));
    renderCountdown();
    await pass(0);
    fireEvent.click(screen.getByRole('button', { name: 'Extend' }));
    await pass(0);
    expect(screen.getByRole('alert')).toHaveTextContent(refusal);
    await pass(1_000);
    expect(screen.getByRole('timer')).toHaveTextContent('Ends in 1:59');
  });

  it('formats what is left as minutes and seconds, never below zero', () => {
    expect(formatLeft(272_000)).toBe('4:32');
    expect(formatLeft(7_000)).toBe('0:07');
    expect(formatLeft(-5_000)).toBe('0:00');
  });
});
