/** The launch is one POST: what the wizard asks before and after it, and the service's refusals in words. */
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { apps, profiles, ready, sessionId } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';

/** Every request the wizard makes, in order, as `METHOD /path`. */
function recordRequests(): string[] {
  const seen: string[] = [];
  server.events.on('request:start', ({ request }) => {
    seen.push(`${request.method} ${new URL(request.url).pathname}`);
  });
  return seen;
}

/** A catalog whose version declares one argument, `title`; `post` answers the launch. */
function serve(post: () => Response) {
  server.use(
    http.get(api('/cfg/apps'), () => HttpResponse.json({ count: apps.length, items: apps })),
    http.get(api('/cfg/apps/:id/versions'), () =>
      HttpResponse.json({
        count: 1,
        items: [
          {
            version: '1.2.0',
            arguments: [{ name: 'title', label: 'Title', type: 'string', required: false }],
          },
        ],
      }),
    ),
    http.get(api('/cfg/apps/:id/versions/:version/profiles'), () =>
      HttpResponse.json({ count: profiles.length, items: profiles }),
    ),
    http.post(api('/stream'), post),
  );
}

async function launch(path = '/launch?app=usd-viewer&profile=default') {
  const rendered = renderRoute(path);
  const review = await screen.findByRole('button', { name: 'Review' });
  await waitFor(() => expect(review).toBeEnabled());
  await userEvent.click(review);
  await userEvent.click(await screen.findByRole('button', { name: 'Launch' }));
  return rendered;
}

const issue = (loc: string[], msg: string, type: string) =>
  HttpResponse.json({ detail: [{ loc, msg, type }] }, { status: 422 });
const sentence = (status: number, detail: string, headers: Record<string, string> = {}) =>
  HttpResponse.json({ detail }, { status, headers });

describe('launch requests', { timeout: 30_000 }, () => {
  it('posts exactly once and asks nothing of the catalog to launch', async () => {
    serve(() => HttpResponse.json(ready));
    const requests = recordRequests();
    const { router } = renderRoute('/launch?app=usd-viewer&profile=default');
    const review = await screen.findByRole('button', { name: 'Review' });
    await waitFor(() => expect(review).toBeEnabled());
    await userEvent.click(review);
    const before = requests.length;
    await userEvent.click(await screen.findByRole('button', { name: 'Launch' }));
    await waitFor(() => expect(router.state.location.pathname).toBe(`/sessions/${sessionId}`));
    const launched = requests.slice(before);
    const post = launched.indexOf('POST /api/stream');
    expect(post).toBeGreaterThanOrEqual(0);
    // Nothing of the catalog is asked between the click and the POST (the app bar's poll may be).
    expect(launched.slice(0, post).filter((r) => r.includes('/cfg/'))).toEqual([]);
    expect(requests.filter((r) => r.startsWith('POST '))).toEqual(['POST /api/stream']);
    // The wizard's own lists only: no lookup of the application, version or profile by itself.
    const lookups = requests.filter((r) =>
      /^GET \/api\/cfg\/apps\/[^/]+(\/versions\/[^/]+(\/profiles\/.+)?)?$/.test(r),
    );
    expect(lookups).toEqual([]);
  });
});

describe('launch refusals, in words where they belong', { timeout: 30_000 }, () => {
  it.each([
    [
      'an application gone from the catalog (422 not_found), at the application',
      () => issue(['body', 'id'], 'No application has id "usd-viewer".', 'not_found'),
      'Application',
      'No application has id "usd-viewer". Choose an application from the list.',
    ],
    [
      'a version gone from the catalog (422 not_found), at the version',
      () => issue(['body', 'version'], 'USD Viewer has no version "1.2.0".', 'not_found'),
      'Version',
      'USD Viewer has no version "1.2.0". Choose a version from the list.',
    ],
    [
      "a deployment's 404 naming the profile, at the profile",
      () => sentence(404, 'Profile not found.'),
      'Profile',
      'Profile not found. Choose a profile that applies to this version.',
    ],
    [
      'a program the service cannot sandbox (503 without a wait), at the application',
      () =>
        sentence(
          503,
          'Terminal cannot start: real programs run only in a sandbox, and user namespaces are off.',
        ),
      'Application',
      'Terminal cannot start: real programs run only in a sandbox, and user namespaces are off. ' +
        'Choose another application, or ask the operator.',
    ],
  ])('%s', async (_name, post, field, words) => {
    serve(post);
    await launch();
    const control = await screen.findByRole('combobox', { name: field });
    await waitFor(() => expect(control).toHaveAccessibleDescription(words));
    expect(control).toHaveAttribute('aria-invalid', 'true');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('says a wrong argument value (422) at its field', async () => {
    serve(() =>
      issue(['body', 'arguments', 'title'], 'String should have at most 80 characters', 'string_too_long'),
    );
    await launch();
    const field = await screen.findByRole('textbox', { name: 'Title' });
    await waitFor(() =>
      expect(field).toHaveAccessibleDescription('String should have at most 80 characters.'),
    );
  });

  it.each([
    [
      'an argument the version no longer takes',
      () =>
        issue(
          ['body', 'arguments', 'stage'],
          'USD Viewer 1.2.0 takes no argument "stage" (it takes title)',
          'extra_forbidden',
        ),
      'USD Viewer 1.2.0 takes no argument "stage" (it takes title). The catalog has changed since this page loaded: ' +
        'reload it and fill in the options again.',
    ],
    [
      'arguments nested too deep',
      () =>
        issue(
          ['body', 'arguments', 'title'],
          'Value error, arguments may nest at most 8 levels',
          'value_error',
        ),
      null,
    ],
    [
      'a body too large (413)',
      () => sentence(413, 'The request body is over 64 KiB; send a smaller body.'),
      'The options are too long to send; shorten the longest of them.',
    ],
    [
      "a deployment's 400",
      () => sentence(400, 'Invalid arguments.'),
      'Invalid arguments. Check the options you gave.',
    ],
  ])('says %s at the Options step', async (_name, post, words) => {
    serve(post);
    await launch();
    if (words === null) {
      const field = await screen.findByRole('textbox', { name: 'Title' });
      await waitFor(() => expect(field).toHaveAccessibleDescription('Arguments may nest at most 8 levels.'));
      return;
    }
    const form = await screen.findByRole('form', { name: 'Launch options' });
    expect(await within(form).findByText(words)).toBeInTheDocument();
  });

  it('points a person at their sessions when they hold as many as they may (429)', async () => {
    serve(() =>
      sentence(429, 'You already have 4 sessions running or waiting; end one before starting another.', {
        'Retry-After': '30',
      }),
    );
    await launch();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(
      'You already have 4 sessions running or waiting; end one before starting another.',
    );
    expect(within(alert).getByRole('link', { name: 'Your sessions' })).toHaveAttribute('href', '/sessions');
    expect(within(alert).queryByRole('button', { name: 'Retry' })).not.toBeInTheDocument();
  });

  it('offers Retry when launches came too fast (429 with a wait)', async () => {
    serve(() =>
      sentence(429, 'You started too many sessions in a short time; try again in 7 s.', {
        'Retry-After': '7',
      }),
    );
    await launch();
    const alert = await screen.findByRole('alert');
    // Said once: the service's sentence names the wait already.
    expect(
      within(alert).getByText('You started too many sessions in a short time; try again in 7 s.'),
    ).toBeInTheDocument();
    expect(within(alert).getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });

  it("says a deployment's 409 and points at the person's sessions", async () => {
    serve(() => sentence(409, 'A session of this application is already running.'));
    await launch();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(
      'A session of this application is already running. Your sessions may already hold what you asked for.',
    );
    expect(within(alert).getByRole('link', { name: 'Your sessions' })).toBeInTheDocument();
  });
});
