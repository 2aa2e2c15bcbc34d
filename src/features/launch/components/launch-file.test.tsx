/** "Open a file of yours": offered only for a version whose program opens files, kept in memory for the viewer. */
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Application, Profile } from '../../../lib/api-client';
import { takeLaunchFile } from '../../../lib/launch-file';
import { ready, sessionId } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';

const apps: Application[] = [
  { id: 'model-viewer', name: 'Model Viewer', description: 'F3D.', tags: [] },
  { id: 'terminal', name: 'Terminal', description: 'xterm.', tags: [] },
];
const profiles: Profile[] = [{ id: 'default', name: 'Default', description: 'One GPU.' }];
/** The extensions each application's version opens; the terminal's says nothing of it. */
const opens: Record<string, string[] | undefined> = { 'model-viewer': ['obj', '.STL'], terminal: undefined };

function serve() {
  server.use(
    http.get(api('/cfg/apps'), () => HttpResponse.json({ count: apps.length, items: apps })),
    http.get(api('/cfg/apps/:id'), ({ params }) => HttpResponse.json(apps.find((a) => a.id === params.id))),
    http.get(api('/cfg/apps/:id/versions'), ({ params }) => {
      const found = opens[String(params.id)];
      return HttpResponse.json({
        count: 1,
        items: [{ version: '1.0.0', arguments: [], ...(found ? { opens: found } : {}) }],
      });
    }),
    http.get(api('/cfg/apps/:id/versions/:version/profiles'), () =>
      HttpResponse.json({ count: profiles.length, items: profiles }),
    ),
    http.post(api('/stream'), () => HttpResponse.json(ready)),
  );
}

describe('launch wizard: a file to open', { timeout: 30_000 }, () => {
  it('offers a file of the extensions the version opens', async () => {
    serve();
    renderRoute('/launch?app=model-viewer');
    const input = await screen.findByLabelText('Open a file of yours');
    expect(input).toHaveAttribute('type', 'file');
    expect(input).toHaveAttribute('accept', '.obj,.stl');
    // A version with a file to open keeps its Options step.
    const steps = screen.getByLabelText('Launch steps');
    expect(within(steps).queryByText(/has none/)).not.toBeInTheDocument();
  });

  it('offers none for a version that opens no files', async () => {
    serve();
    renderRoute('/launch?app=terminal');
    // Its versions are known once the Options step is said to be skipped.
    expect(
      await within(await screen.findByLabelText('Launch steps')).findByText('Terminal has none'),
    ).toBeInTheDocument();
    expect(screen.queryByLabelText('Open a file of yours')).not.toBeInTheDocument();
  });

  it('shows the chosen file in the review and hands it to the viewer of the session launched', async () => {
    serve();
    const { router } = renderRoute('/launch?app=model-viewer');
    const part = new File(['v 0 0 0'], 'part.obj');
    await userEvent.upload(await screen.findByLabelText('Open a file of yours'), part);
    expect(screen.getByText('part.obj (7 B)')).toBeInTheDocument();
    const review = screen.getByRole('button', { name: 'Review' });
    await waitFor(() => expect(review).toBeEnabled());
    await userEvent.click(review);
    const summary = await screen.findByRole('table', { name: 'Launch summary' });
    expect(within(summary).getByRole('row', { name: 'File to open part.obj' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Launch' }));
    await waitFor(() => expect(router.state.location.pathname).toBe(`/sessions/${sessionId}`));
    expect(takeLaunchFile(sessionId)).toBe(part);
    expect(takeLaunchFile(sessionId)).toBeUndefined();
  });

  it('says so of a file the program does not open, and leaves it out of the review', async () => {
    serve();
    renderRoute('/launch?app=model-viewer');
    await userEvent.upload(
      await screen.findByLabelText('Open a file of yours'),
      new File(['x'], 'notes.txt'),
      {
        applyAccept: false,
      },
    );
    expect(
      await screen.findByText('The program does not open notes.txt: choose a .obj, .stl file.'),
    ).toBeInTheDocument();
    const review = screen.getByRole('button', { name: 'Review' });
    await waitFor(() => expect(review).toBeEnabled());
    await userEvent.click(review);
    const summary = await screen.findByRole('table', { name: 'Launch summary' });
    expect(within(summary).queryByText('File to open')).not.toBeInTheDocument();
  });
});
