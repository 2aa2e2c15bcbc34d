import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { pending, ready, sessionId } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';

// The viewer is lazy-loaded; its first import in a test file can take seconds on a busy machine.
const loading = { timeout: 10_000 };

// jsdom has no WebRTC: a ready session therefore ends in the "cannot play" failure, which is enough to
// exercise everything around the video.

describe('ViewerPage', () => {
  it('says the session has ended when the service no longer knows it, and offers no reconnect', async () => {
    server.use(
      http.get(api('/stream/:id'), () => HttpResponse.json({ detail: 'No such session.' }, { status: 404 })),
    );
    renderRoute(`/sessions/${sessionId}`);
    expect(await screen.findByText('This session has ended.', {}, loading)).toBeInTheDocument();
    expect(screen.getByTestId('player-state')).toHaveTextContent('Ended');
    expect(screen.getByRole('button', { name: 'End session' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Reconnect' })).toBeDisabled();
  });

  it('says what the service is doing while the session is pending', async () => {
    server.use(http.get(api('/stream/:id'), () => HttpResponse.json(pending, { status: 202 })));
    renderRoute(`/sessions/${sessionId}`);
    expect(
      await screen.findByText(`Waiting for the session: ${pending.status.message}`, {}, loading),
    ).toBeInTheDocument();
    expect(screen.getByTestId('player-state')).toHaveTextContent('Connecting');
  });

  it('shows a failure with a retry, and ends the session after confirming', async () => {
    let deleted = '';
    server.use(
      http.get(api('/stream/:id'), () => HttpResponse.json(ready)),
      http.delete(api('/stream/:id'), ({ params }) => {
        deleted = String(params.id);
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const user = userEvent.setup();
    renderRoute(`/sessions/${sessionId}`);
    const status = await screen.findByRole('status', {}, loading);
    expect(await within(status).findByText(/This browser cannot play the stream/)).toBeInTheDocument();
    expect(within(status).getByRole('button', { name: 'Retry' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'End session' }));
    const dialog = await screen.findByRole('dialog', { name: 'End this session?' });
    await user.click(within(dialog).getByRole('button', { name: 'End session' }));
    expect(await screen.findByText('This session has ended.')).toBeInTheDocument();
    expect(deleted).toBe(sessionId);
  });

  it('is watch-only with ?mode=watch: no end button, no pointer lock, no link to share', async () => {
    server.use(http.get(api('/stream/:id'), () => HttpResponse.json(ready)));
    renderRoute(`/sessions/${sessionId}?mode=watch`);
    expect(await screen.findByRole('heading', { name: 'Watching session' }, loading)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'End session' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Lock pointer' })).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Watch-only link')).not.toBeInTheDocument();
  });

  it('offers the watch-only link and toggles the statistics with Ctrl+Shift+S', async () => {
    server.use(http.get(api('/stream/:id'), () => HttpResponse.json(ready)));
    const user = userEvent.setup();
    renderRoute(`/sessions/${sessionId}`);
    const link = await screen.findByLabelText('Watch-only link', {}, loading);
    expect(link).toHaveValue(`${window.location.origin}/sessions/${sessionId}?mode=watch`);
    expect(screen.queryByRole('region', { name: 'Stream statistics' })).not.toBeInTheDocument();
    await user.keyboard('{Control>}{Shift>}S{/Shift}{/Control}');
    expect(screen.getByRole('region', { name: 'Stream statistics' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Hide statistics' }));
    await waitFor(() =>
      expect(screen.queryByRole('region', { name: 'Stream statistics' })).not.toBeInTheDocument(),
    );
  });
});
