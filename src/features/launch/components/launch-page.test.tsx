import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { WAITING_POLL_MS } from '../../../lib/queries/session-queries';
import { getStartedSessions } from '../../../lib/session-history';
import { apps, pending, profiles, ready, sessionId } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';

function serveCatalog() {
  server.use(
    http.get(api('/cfg/apps'), () => HttpResponse.json({ count: apps.length, items: apps })),
    // Out of order on purpose: the portal sorts by SemVer.
    http.get(api('/cfg/apps/:id/versions'), () =>
      HttpResponse.json({
        count: 3,
        items: [{ version: '1.9.0' }, { version: '2.0.0-rc.1' }, { version: '1.10.0' }],
      }),
    ),
    http.get(api('/cfg/apps/:id/versions/:version/profiles'), () =>
      HttpResponse.json({ count: profiles.length, items: profiles }),
    ),
  );
}

async function reviewAndLaunch() {
  // Review waits until the profile is known to apply.
  const review = await screen.findByRole('button', { name: 'Review' });
  await waitFor(() => expect(review).toBeEnabled());
  await userEvent.click(review);
  await userEvent.click(await screen.findByRole('button', { name: 'Launch' }));
}

describe('launch wizard', { timeout: 30_000 }, () => {
  it('defaults the version to latest and posts the choice; 200 opens the viewer', async () => {
    serveCatalog();
    let body: unknown;
    server.use(
      http.post(api('/stream'), async ({ request }) => {
        body = await request.json();
        return HttpResponse.json(ready);
      }),
    );
    const { router } = renderRoute('/launch?app=usd-viewer&profile=default&usd_stage_uri=file:///s.usd');
    const version = await screen.findByRole('combobox', { name: 'Version' });
    await waitFor(() => expect(version).toHaveTextContent('latest (1.10.0)'));
    // Versions that declare no arguments (real deployments) are offered the USD stage, as always.
    expect(screen.getByRole('textbox', { name: 'USD stage URI' })).toHaveValue('file:///s.usd');
    await reviewAndLaunch();
    await waitFor(() => expect(router.state.location.pathname).toBe(`/sessions/${sessionId}`));
    expect(body).toEqual({
      id: 'usd-viewer',
      version: 'latest',
      profile: 'default',
      arguments: { usd_stage_uri: 'file:///s.usd' },
    });
    expect(getStartedSessions()[0]).toMatchObject({ id: sessionId, app: 'usd-viewer', version: '1.10.0' });
  });

  it('asks for the session list again after a launch, so the app bar counts the new session at once', async () => {
    serveCatalog();
    let lists = 0;
    server.use(
      http.post(api('/stream'), () => HttpResponse.json(ready)),
      http.get(api('/stream'), () => {
        lists += 1;
        return HttpResponse.json({ offset: 0, limit: 500, count: 1, items: [ready] });
      }),
      // What the session's page then asks for.
      http.get(api('/stream/:id'), () => HttpResponse.json(ready)),
      http.get(api('/cfg/apps/:id'), () => HttpResponse.json(apps[0])),
    );
    const { router } = renderRoute('/launch?app=usd-viewer&profile=default');
    // The app bar asked once as the page opened (no session then).
    await waitFor(() => expect(lists).toBe(1));
    const before = lists;
    await reviewAndLaunch();
    await waitFor(() => expect(router.state.location.pathname).toBe(`/sessions/${sessionId}`));
    // At once: well before the list's own refresh, every 5 s.
    await waitFor(() => expect(lists).toBeGreaterThan(before), { timeout: 2_000 });
    expect(await screen.findByRole('button', { name: /^Your sessions: 1 session/ })).toBeInTheDocument();
  });

  it('on 202 opens the session page at once, which shows the queue and then the viewer when ready', async () => {
    // Time runs on its own (the wizard's clicks end on timers) and is moved on by hand to the next poll.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    onTestFinished(() => void vi.useRealTimers());
    serveCatalog();
    let polls = 0;
    server.use(
      http.post(api('/stream'), () => HttpResponse.json(pending, { status: 202 })),
      http.get(api('/stream/:id'), () => {
        polls += 1;
        return polls < 2 ? HttpResponse.json(pending, { status: 202 }) : HttpResponse.json(ready);
      }),
    );
    const { router } = renderRoute('/launch?app=usd-viewer&profile=default');
    await reviewAndLaunch();
    await waitFor(() => expect(router.state.location.pathname).toBe(`/sessions/${sessionId}`));
    expect(await screen.findByRole('heading', { name: 'Waiting for a free GPU' })).toBeInTheDocument();
    expect(screen.getByText('1 session ahead')).toBeInTheDocument();
    expect(screen.queryByLabelText('Session stream')).not.toBeInTheDocument();
    // The next poll, within the waiting pace, finds it ready.
    await act(() => vi.advanceTimersByTimeAsync(WAITING_POLL_MS));
    await waitFor(() =>
      expect(screen.queryByRole('heading', { name: 'Waiting for a free GPU' })).not.toBeInTheDocument(),
    );
    expect(screen.getByLabelText('Session stream')).toBeInTheDocument();
  });

  it('sends an earlier link to a waiting session (&session=) to the session page', async () => {
    server.use(http.get(api('/stream/:id'), () => HttpResponse.json(pending, { status: 202 })));
    const { router } = renderRoute(`/launch?app=usd-viewer&profile=default&session=${sessionId}`);
    await waitFor(() => expect(router.state.location.pathname).toBe(`/sessions/${sessionId}`));
    expect(await screen.findByRole('heading', { name: 'Waiting for a free GPU' })).toBeInTheDocument();
  });

  it('shows a 422 from a bad deep link on the application field', async () => {
    serveCatalog();
    server.use(
      http.get(api('/cfg/apps/:id/versions'), () =>
        HttpResponse.json(
          {
            detail: [
              {
                loc: ['path', 'id'],
                msg: "String should match pattern '^[A-Za-z0-9]'",
                type: 'string_pattern_mismatch',
              },
            ],
          },
          { status: 422 },
        ),
      ),
    );
    renderRoute('/launch?app=bad%20id');
    const field = await screen.findByRole('combobox', { name: 'Application' });
    await waitFor(() => expect(field).toHaveAccessibleDescription(/String should match pattern/));
    expect(field).toHaveAttribute('aria-invalid', 'true');
  });

  it('says why Review cannot be used yet', async () => {
    serveCatalog();
    renderRoute('/launch');
    const review = await screen.findByRole('button', { name: 'Review' });
    expect(review).toBeDisabled();
    expect(review).toHaveAccessibleDescription('Choose an application to review the launch.');
  });

  it('says at the profile field that a linked profile does not apply, and keeps Review closed', async () => {
    serveCatalog();
    renderRoute('/launch?app=usd-viewer&profile=editor-only');
    const profile = await screen.findByRole('combobox', { name: 'Profile' });
    await waitFor(() =>
      expect(profile).toHaveAccessibleDescription(
        'Profile editor-only does not apply to USD Viewer 1.10.0; choose one that does.',
      ),
    );
    const review = screen.getByRole('button', { name: 'Review' });
    expect(review).toBeDisabled();
    expect(review).toHaveAccessibleDescription('Fix the profile above to review the launch.');
  });

  it('reads a + in a linked version as a +, not as the space a query makes of it', async () => {
    serveCatalog();
    const asked: string[] = [];
    server.use(
      http.get(api('/cfg/apps/:id/versions'), () =>
        HttpResponse.json({ count: 2, items: [{ version: '1.10.0+build.7' }, { version: '1.9.0' }] }),
      ),
      http.get(api('/cfg/apps/:id/versions/:version/profiles'), ({ params }) => {
        asked.push(String(params.version));
        return HttpResponse.json({ count: profiles.length, items: profiles });
      }),
    );
    renderRoute('/launch?app=usd-viewer&version=1.10.0+build.7&profile=default');
    const version = await screen.findByRole('combobox', { name: 'Version' });
    expect(version).toHaveTextContent('1.10.0+build.7');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Review' })).toBeEnabled());
    expect(asked).toEqual(['1.10.0+build.7']);
  });

  it('shows a 422 of POST /stream on the field its loc names', async () => {
    serveCatalog();
    server.use(
      http.post(api('/stream'), () =>
        HttpResponse.json(
          { detail: [{ loc: ['body', 'profile'], msg: 'Profile does not apply.', type: 'not_found' }] },
          { status: 422 },
        ),
      ),
    );
    renderRoute('/launch?app=usd-viewer&profile=small');
    await reviewAndLaunch();
    const words = 'Profile does not apply. Choose a profile that applies to this version.';
    expect(await screen.findByText(words)).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Profile' })).toHaveAccessibleDescription(words);
    expect(screen.getByRole('combobox', { name: 'Version' })).not.toHaveAccessibleDescription(
      /does not apply/,
    );
  });

  it('shows a 403 as a permission message', async () => {
    serveCatalog();
    server.use(
      http.post(api('/stream'), () => HttpResponse.json({ detail: 'Not authenticated' }, { status: 403 })),
    );
    renderRoute('/launch?app=usd-viewer&profile=default');
    await reviewAndLaunch();
    expect(await screen.findByRole('alert')).toHaveTextContent(/do not have permission.*Not authenticated/);
  });

  it('shows a 503 with when to retry', async () => {
    serveCatalog();
    server.use(
      http.post(api('/stream'), () =>
        HttpResponse.json(
          { detail: 'Every GPU is busy and the queue is full.' },
          { status: 503, headers: { 'Retry-After': '30' } },
        ),
      ),
    );
    renderRoute('/launch?app=usd-viewer&profile=default');
    await reviewAndLaunch();
    expect(await screen.findByRole('alert')).toHaveTextContent('queue is full. Try again in 30 s.');
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });

  it('offers Retry after a network failure of the launch', async () => {
    serveCatalog();
    let calls = 0;
    server.use(
      http.post(api('/stream'), () => {
        calls += 1;
        return calls === 1 ? HttpResponse.error() : HttpResponse.json(ready);
      }),
    );
    const { router } = renderRoute('/launch?app=usd-viewer&profile=default');
    await reviewAndLaunch();
    expect(await screen.findByRole('alert')).toHaveTextContent('could not be reached');
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(router.state.location.pathname).toBe(`/sessions/${sessionId}`));
  });
});
