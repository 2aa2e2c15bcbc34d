import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ready, sessionId } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';

// The viewer is lazy-loaded; its first import in a test file can take seconds on a busy machine.
const loading = { timeout: 10_000 };
const ticket = { ticket: 'control-ticket', scope: 'control', expires_at: '2030-01-01T00:00:00Z' };
const stage = { name: 'usd_stage_uri', label: 'USD stage URI', type: 'string', required: false };

/** A ready session of `app` 1.0.0, whose version declares `declared` (undefined: nothing). */
function serve(app: string, declared: unknown[] | undefined) {
  server.use(
    http.get(api('/stream/:id'), () =>
      HttpResponse.json({ ...ready, app, version: '1.0.0', profile: 'default' }),
    ),
    http.post(api('/stream/:id/tickets'), () => HttpResponse.json(ticket, { status: 201 })),
    http.get(api('/cfg/apps/:id'), () =>
      HttpResponse.json({ id: app, name: app, description: '', tags: [] }),
    ),
    http.get(api('/cfg/apps/:id/versions'), () =>
      HttpResponse.json({
        count: 1,
        items: [{ version: '1.0.0', ...(declared ? { arguments: declared } : {}) }],
      }),
    ),
    http.get(api('/cfg/apps/:id/versions/:version/profiles'), () =>
      HttpResponse.json({ count: 0, items: [] }),
    ),
  );
}

// jsdom has no WebRTC: the session's panels come with the "cannot play" failure, which is enough here.
describe('the viewer’s USD stage controls', () => {
  it('are offered where the version declares usd_stage_uri', async () => {
    serve('usd-viewer', [stage]);
    renderRoute(`/sessions/${sessionId}`);
    expect(await screen.findByRole('list', { name: 'Message log' }, loading)).toBeInTheDocument();
    expect(await screen.findByRole('textbox', { name: 'Stage URL' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Query loading state' })).toBeInTheDocument();
  });

  it('are offered, as before, where nothing is declared', async () => {
    serve('kit-app', undefined);
    renderRoute(`/sessions/${sessionId}`);
    expect(await screen.findByRole('textbox', { name: 'Stage URL' }, loading)).toBeInTheDocument();
  });

  it('are not offered for a program that takes no stage', async () => {
    serve('terminal', []);
    renderRoute(`/sessions/${sessionId}`);
    expect(await screen.findByRole('list', { name: 'Message log' }, loading)).toBeInTheDocument();
    // Give the versions' answer its chance to (wrongly) bring them.
    await waitFor(() => expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('terminal'));
    expect(screen.queryByRole('textbox', { name: 'Stage URL' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Open stage' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Query loading state' })).not.toBeInTheDocument();
  });

  it('are not offered to a watch-only viewer, even of an application that opens stages', async () => {
    serve('usd-viewer', [stage]);
    renderRoute(`/sessions/${sessionId}?mode=watch`);
    expect(await screen.findByRole('list', { name: 'Message log' }, loading)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('usd-viewer'));
    expect(screen.queryByRole('textbox', { name: 'Stage URL' })).not.toBeInTheDocument();
  });
});
