/**
 * What the wizard chooses and shows for a person: the application by its name, the only or default profile,
 * the Options step skipped where a version takes none, and a card's link (`step=review`) straight to Review.
 */
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Application, Profile } from '../../../lib/api-client';
import { ready, sessionId } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';

const apps: Application[] = [
  { id: 'terminal', name: 'Terminal', description: 'xterm.', tags: ['real'] },
  { id: 'model-viewer', name: 'Model Viewer', description: 'F3D.', tags: ['real'] },
  { id: 'editor', name: 'Editor', description: 'Two profiles, neither the default.', tags: [] },
  { id: 'solo', name: 'Solo', description: 'One profile.', tags: [] },
  { id: 'form', name: 'Form', description: 'Asks for a title.', tags: [] },
];

const standard: Profile[] = [
  { id: 'default', name: 'Default', description: 'One GPU at 30 fps.' },
  { id: 'light', name: 'Light', description: 'For slow links.' },
];

/** Each application's versions' declared arguments, and its profiles. */
const catalog: Record<string, { arguments: unknown[]; profiles: Profile[] }> = {
  terminal: { arguments: [], profiles: standard },
  'model-viewer': {
    arguments: [
      {
        name: 'model',
        label: 'Model',
        type: 'choice',
        choices: ['torus-knot.obj', 'icosphere.obj'],
        default: 'torus-knot.obj',
        required: false,
      },
    ],
    profiles: standard,
  },
  editor: {
    arguments: [],
    profiles: [
      { id: 'small', name: 'Small', description: 'Small.' },
      { id: 'large', name: 'Large', description: 'Large.' },
    ],
  },
  solo: { arguments: [], profiles: [{ id: 'only-one', name: 'Only one', description: 'The one.' }] },
  form: {
    arguments: [{ name: 'title', label: 'Title', type: 'string', required: true }],
    profiles: standard,
  },
};

/** Serves the catalog above (or `items` as the list); returns the bodies POST /stream received. */
function serve(items: Application[] = apps): unknown[] {
  const posted: unknown[] = [];
  server.use(
    http.get(api('/cfg/apps'), () => HttpResponse.json({ count: items.length, items })),
    http.get(api('/cfg/apps/:id/versions'), ({ params }) =>
      HttpResponse.json({
        count: 1,
        items: [{ version: '1.0.0', arguments: catalog[String(params.id)]?.arguments ?? [] }],
      }),
    ),
    http.get(api('/cfg/apps/:id/versions/:version/profiles'), ({ params }) => {
      const found = catalog[String(params.id)]?.profiles ?? standard;
      return HttpResponse.json({ count: found.length, items: found });
    }),
    http.post(api('/stream'), async ({ request }) => {
      posted.push(await request.json());
      return HttpResponse.json(ready);
    }),
  );
  return posted;
}

describe('launch wizard: what it chooses and shows', { timeout: 30_000 }, () => {
  it('shows the application by its name, with no id beneath, and takes a typed name as that application', async () => {
    serve();
    const { router } = renderRoute('/launch?app=terminal');
    const field = await screen.findByRole('combobox', { name: 'Application' });
    await waitFor(() => expect(field).toHaveValue('Terminal'));
    expect(field).not.toHaveAccessibleDescription(/terminal/);

    await userEvent.click(field);
    await userEvent.clear(field);
    const options = await screen.findAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['Terminal', 'Model Viewer', 'Editor', 'Solo', 'Form']);
    await userEvent.type(field, 'model viewer');
    await userEvent.tab();
    await waitFor(() => expect(router.state.location.search).toContain('app=model-viewer'));
    expect(field).toHaveValue('Model Viewer');
  });

  it('shows the id, small, where two applications share a name', async () => {
    serve([
      { id: 'viewer-a', name: 'Viewer', description: 'A.', tags: [] },
      { id: 'viewer-b', name: 'Viewer', description: 'B.', tags: [] },
    ]);
    renderRoute('/launch?app=viewer-b');
    const field = await screen.findByRole('combobox', { name: 'Application' });
    await waitFor(() => expect(field).toHaveValue('Viewer'));
    expect(field).toHaveAccessibleDescription('viewer-b');
    await userEvent.click(field);
    await userEvent.clear(field);
    const options = await screen.findAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['Viewerviewer-a', 'Viewerviewer-b']);
  });

  it("chooses the application's default profile for a person who has not chosen one", async () => {
    serve();
    renderRoute('/launch?app=terminal');
    const profile = await screen.findByRole('combobox', { name: 'Profile' });
    await waitFor(() => expect(profile).toHaveTextContent('Default (default)'));
    expect(screen.getByRole('button', { name: 'Review' })).toBeEnabled();
  });

  it('skips the Options step of a version that takes none, and says why', async () => {
    serve();
    renderRoute('/launch?app=terminal');
    const steps = await screen.findByLabelText('Launch steps');
    expect(await within(steps).findByText('Terminal has none')).toBeInTheDocument();
    const options = within(steps).getByText('Options');
    expect(options).toHaveClass('Mui-disabled');
    expect(options).not.toHaveClass('Mui-completed');
    expect(options).not.toHaveClass('Mui-active');
    // Review is what comes next, once the profile is known.
    await waitFor(() => expect(within(steps).getByText('Review')).toHaveClass('Mui-active'));
  });

  it('keeps the Options step of a version that takes options', async () => {
    serve();
    renderRoute('/launch?app=model-viewer');
    await screen.findByRole('combobox', { name: 'Model' });
    const steps = screen.getByLabelText('Launch steps');
    await waitFor(() => expect(within(steps).getByText('Options')).toHaveClass('Mui-active'));
    expect(within(steps).queryByText(/has none/)).not.toBeInTheDocument();
  });

  it("opens a card's link at the review, with the default profile, and launches with the review's Launch", async () => {
    const posted = serve();
    const { router } = renderRoute('/launch?app=terminal&step=review');
    const summary = await screen.findByRole('table', { name: 'Launch summary' });
    expect(within(summary).getByRole('row', { name: 'Application Terminal (terminal)' })).toBeInTheDocument();
    expect(within(summary).getByRole('row', { name: 'Profile Default (default)' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Launch' }));
    await waitFor(() => expect(router.state.location.pathname).toBe(`/sessions/${sessionId}`));
    expect(posted).toEqual([{ id: 'terminal', version: 'latest', profile: 'default' }]);
  });

  it("takes an application's only profile, and its options' defaults, to the review", async () => {
    serve();
    renderRoute('/launch?app=solo&step=review');
    const summary = await screen.findByRole('table', { name: 'Launch summary' });
    expect(within(summary).getByRole('row', { name: 'Profile Only one (only-one)' })).toBeInTheDocument();
  });

  it('shows the options of the review, and Back returns to the form for good', async () => {
    serve();
    const { router } = renderRoute('/launch?app=model-viewer&step=review');
    const summary = await screen.findByRole('table', { name: 'Launch summary' });
    expect(within(summary).getByRole('row', { name: 'Model torus-knot.obj' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Back' }));
    expect(await screen.findByRole('combobox', { name: 'Model' })).toHaveTextContent('torus-knot.obj');
    expect(router.state.location.search).not.toContain('step=');
    expect(screen.queryByRole('table', { name: 'Launch summary' })).not.toBeInTheDocument();
  });

  it('asks for the profile where there are several and none is the default, and stays on the form once chosen', async () => {
    serve();
    renderRoute('/launch?app=editor&step=review');
    const review = await screen.findByRole('button', { name: 'Review' });
    await waitFor(() => expect(review).toHaveAccessibleDescription('Choose a profile to review the launch.'));
    expect(screen.queryByRole('table', { name: 'Launch summary' })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('combobox', { name: 'Profile' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Large (large)' }));
    await waitFor(() => expect(review).toBeEnabled());
    // The person asks for the review: choosing a profile does not jump to it.
    expect(screen.queryByRole('table', { name: 'Launch summary' })).not.toBeInTheDocument();
    await userEvent.click(review);
    expect(await screen.findByRole('table', { name: 'Launch summary' })).toBeInTheDocument();
  });

  it('asks for a required option before the review', async () => {
    serve();
    renderRoute('/launch?app=form&step=review');
    const review = await screen.findByRole('button', { name: 'Review' });
    await waitFor(() => expect(review).toHaveAccessibleDescription('Fill in Title to review the launch.'));
    expect(screen.getByRole('textbox', { name: 'Title' })).toBeRequired();
    expect(screen.queryByRole('table', { name: 'Launch summary' })).not.toBeInTheDocument();
  });
});
