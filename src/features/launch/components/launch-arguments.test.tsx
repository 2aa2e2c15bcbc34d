import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { profiles, ready, sessionId } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';

const modelViewer = { id: 'model-viewer', name: 'Model Viewer', description: 'F3D.', tags: ['real'] };
const terminal = { id: 'terminal', name: 'Terminal', description: 'xterm.', tags: ['real'] };

/** Model Viewer declares four arguments, one of each type; Terminal declares that it takes none. */
const declarations: Record<string, unknown> = {
  'model-viewer': [
    {
      name: 'model',
      label: 'Model',
      type: 'choice',
      choices: ['torus-knot.obj', 'icosphere.obj'],
      default: 'torus-knot.obj',
      description: 'The model F3D shows.',
      required: false,
    },
    { name: 'scale', label: 'Scale', type: 'number', default: 1, required: false },
    { name: 'grid', label: 'Grid', type: 'boolean', default: true, required: false },
    { name: 'title', label: 'Title', type: 'string', description: 'Shown above it.', required: true },
  ],
  terminal: [],
};

function serveCatalog(posted: unknown[]) {
  const apps = [modelViewer, terminal];
  server.use(
    http.get(api('/cfg/apps'), () => HttpResponse.json({ count: apps.length, items: apps })),
    http.get(api('/cfg/apps/:id'), ({ params }) => {
      const app = apps.find((a) => a.id === params.id);
      return app
        ? HttpResponse.json(app)
        : HttpResponse.json({ detail: `No application has id "${String(params.id)}".` }, { status: 404 });
    }),
    http.get(api('/cfg/apps/:id/versions'), ({ params }) => {
      const args = declarations[String(params.id)];
      if (args === undefined)
        return HttpResponse.json(
          { detail: `No application has id "${String(params.id)}".` },
          { status: 404 },
        );
      return HttpResponse.json({ count: 1, items: [{ version: '1.3.1', arguments: args }] });
    }),
    http.get(api('/cfg/apps/:id/versions/:version'), ({ params }) =>
      HttpResponse.json({ version: params.version, description: 'A version.' }),
    ),
    http.get(api('/cfg/apps/:id/versions/:version/profiles'), ({ params }) =>
      params.version === '1.0'
        ? HttpResponse.json(
            {
              detail: [
                { loc: ['path', 'version'], msg: "String should be a SemVer version or '*'", type: 'x' },
              ],
            },
            { status: 422 },
          )
        : HttpResponse.json({ count: profiles.length, items: profiles }),
    ),
    http.get(api('/cfg/apps/:id/versions/:version/profiles/:profile'), ({ params }) =>
      HttpResponse.json(profiles.find((x) => x.id === params.profile)),
    ),
    http.post(api('/stream'), async ({ request }) => {
      posted.push(await request.json());
      return HttpResponse.json(ready);
    }),
  );
}

async function review() {
  const button = await screen.findByRole('button', { name: 'Review' });
  await waitFor(() => expect(button).toBeEnabled());
  await userEvent.click(button);
}

describe('launch wizard: declared arguments', { timeout: 30_000 }, () => {
  it('builds a field of its type for each declared argument, with defaults, help and required marked', async () => {
    const posted: unknown[] = [];
    serveCatalog(posted);
    const { router } = renderRoute('/launch?app=model-viewer&profile=default');
    const model = await screen.findByRole('combobox', { name: 'Model' });
    expect(model).toHaveTextContent('torus-knot.obj');
    expect(model).toHaveAccessibleDescription('The model F3D shows.');
    expect(screen.getByRole('spinbutton', { name: 'Scale' })).toHaveValue(1);
    expect(screen.getByRole('switch', { name: 'Grid' })).toBeChecked();
    const title = screen.getByRole('textbox', { name: 'Title' });
    expect(title).toBeRequired();
    expect(title).toHaveAccessibleDescription('Shown above it.');
    expect(screen.queryByRole('textbox', { name: /USD stage/ })).not.toBeInTheDocument();
    // Required and empty: Review says what to fill in.
    const button = screen.getByRole('button', { name: 'Review' });
    await waitFor(() => expect(button).toHaveAccessibleDescription('Fill in Title to review the launch.'));

    await userEvent.click(model);
    await userEvent.click(await screen.findByRole('option', { name: 'icosphere.obj' }));
    await userEvent.clear(screen.getByRole('spinbutton', { name: 'Scale' }));
    await userEvent.type(screen.getByRole('spinbutton', { name: 'Scale' }), '2.5');
    await userEvent.click(screen.getByRole('switch', { name: 'Grid' }));
    await userEvent.type(screen.getByRole('textbox', { name: 'Title' }), 'Ball');
    await review();
    const summary = screen.getByRole('table', { name: 'Launch summary' });
    expect(within(summary).getByRole('row', { name: 'Model icosphere.obj' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Launch' }));
    await waitFor(() => expect(router.state.location.pathname).toBe(`/sessions/${sessionId}`));
    expect(posted).toEqual([
      {
        id: 'model-viewer',
        version: 'latest',
        profile: 'default',
        arguments: { model: 'icosphere.obj', scale: 2.5, grid: false, title: 'Ball' },
      },
    ]);
  });

  it('offers no argument field to a version that declares none, and sends none', async () => {
    const posted: unknown[] = [];
    serveCatalog(posted);
    const { router } = renderRoute('/launch?app=terminal&profile=default');
    const button = await screen.findByRole('button', { name: 'Review' });
    // Enabled once the version (and its declaration) is known.
    await waitFor(() => expect(button).toBeEnabled());
    const form = screen.getByRole('form', { name: 'Launch options' });
    // Application, version and profile, and nothing else to fill in.
    expect(within(form).getAllByRole('combobox')).toHaveLength(3);
    expect(within(form).queryAllByRole('textbox')).toHaveLength(0);
    await userEvent.click(button);
    await userEvent.click(screen.getByRole('button', { name: 'Launch' }));
    await waitFor(() => expect(router.state.location.pathname).toBe(`/sessions/${sessionId}`));
    expect(posted).toEqual([{ id: 'terminal', version: 'latest', profile: 'default' }]);
  });

  it('shows a 422 of POST /stream at the argument its loc names', async () => {
    serveCatalog([]);
    server.use(
      http.post(api('/stream'), () =>
        HttpResponse.json(
          {
            detail: [
              { loc: ['body', 'arguments', 'title'], msg: 'Title is too long.', type: 'string_too_long' },
            ],
          },
          { status: 422 },
        ),
      ),
    );
    renderRoute('/launch?app=model-viewer&profile=default&title=Long');
    await review();
    await userEvent.click(screen.getByRole('button', { name: 'Launch' }));
    const title = await screen.findByRole('textbox', { name: 'Title' });
    await waitFor(() => expect(title).toHaveAccessibleDescription('Title is too long.'));
    expect(title).toHaveAttribute('aria-invalid', 'true');
  });

  it('says what is wrong with a bad deep link at its fields, without marking those steps done', async () => {
    serveCatalog([]);
    renderRoute('/launch?app=nope&version=1.0&profile=default');
    const app = await screen.findByRole('combobox', { name: 'Application' });
    await waitFor(() => expect(app).toHaveAccessibleDescription('No application has id "nope".'));
    expect(app).toHaveAttribute('aria-invalid', 'true');
    const version = screen.getByRole('combobox', { name: 'Version' });
    expect(version).toHaveAccessibleDescription(
      '1.0 is not a version of nope; versions are written like 1.2.0.',
    );
    expect(screen.queryByText(/String should be/)).not.toBeInTheDocument();
    const steps = screen.getByLabelText('Launch steps');
    for (const name of ['Application', 'Version']) {
      const label = within(steps).getByText(name);
      expect(label).toHaveClass('Mui-error');
      expect(label).not.toHaveClass('Mui-completed');
    }
    // Nobody could confirm the profile of an application that does not exist: not done either.
    expect(within(steps).getByText('Profile')).not.toHaveClass('Mui-completed');
    expect(screen.getByRole('button', { name: 'Review' })).toHaveAccessibleDescription(
      'Fix the application above to review the launch.',
    );
  });
});
