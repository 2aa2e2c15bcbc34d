/** The sessions page's states as a person sees them: words, colour and icon; and the short session id. */
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../../lib/api-client';
import { rememberSession } from '../../../lib/session-history';
import { ready } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { sessionCatalog } from '../../../test/session-catalog';
import { api, http, HttpResponse, server } from '../../../test/server';

const WAITING = '11111111-1111-4111-8111-111111111111';
const STARTING = '22222222-2222-4222-8222-222222222222';
const RUNNING = '33333333-3333-4333-8333-333333333333';
const FAILED = '44444444-4444-4444-8444-444444444444';

const REASON = 'Broken Program 0.0.1 exited with code 1 before it was ready; it said: no such file';

const launched = { app: 'usd-viewer', version: '1.2.0', profile: 'default' };

/** One session of each condition the live list gives; records the sessions ended. */
function service(items: Session[]) {
  const deleted: string[] = [];
  let live = items;
  server.use(
    http.get(api('/stream'), ({ request }) =>
      new URL(request.url).searchParams.get('state') === 'ended'
        ? HttpResponse.json({ offset: 0, limit: 50, count: 0, items: [] })
        : HttpResponse.json({ offset: 0, limit: 500, count: live.length, items: live }),
    ),
    http.delete(api('/stream/:id'), ({ params }) => {
      deleted.push(String(params.id));
      live = live.filter((s) => s.id !== params.id);
      return new HttpResponse(null, { status: 204 });
    }),
  );
  return deleted;
}

const failed: Session = {
  id: FAILED,
  status: { condition: 'failed', message: REASON, status: false },
  ...launched,
};

/** The row of the running sessions' table that shows session `id`. */
async function rowOf(id: string): Promise<HTMLElement> {
  const table = await screen.findByRole('table', { name: 'Sessions' });
  return within(table)
    .getByRole('button', { name: `Copy session id ${id}` })
    .closest('tr')!;
}

/** The badge of a row: the chip whose words are `label`. */
function badge(row: HTMLElement, label: string): HTMLElement {
  return within(row).getByText(label, { exact: true }).closest<HTMLElement>('.MuiChip-root')!;
}

describe('session states on the sessions page', { timeout: 30_000 }, () => {
  it('shows a failed session as failed: red, an error icon, its reason, Remove and no viewer', async () => {
    sessionCatalog();
    const deleted = service([failed]);
    renderRoute('/sessions');
    const row = await rowOf(FAILED);
    const chip = badge(row, 'Failed');
    expect(chip).toHaveClass('MuiChip-colorError');
    expect(within(chip).getByTestId('ErrorIcon')).toBeInTheDocument();
    expect(within(row).queryByText(/pending/i)).not.toBeInTheDocument();
    expect(within(row).getByText(REASON)).toBeInTheDocument();
    // Nothing runs: there is no viewer to open and nothing to end, only a line to take off the list.
    expect(within(row).queryByRole('link', { name: /Open viewer/ })).not.toBeInTheDocument();
    expect(within(row).queryByRole('button', { name: `End session ${FAILED}` })).not.toBeInTheDocument();
    await userEvent.click(within(row).getByRole('button', { name: `Remove failed session ${FAILED}` }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(await screen.findByText(/No sessions/)).toBeInTheDocument();
    expect(deleted).toEqual([FAILED]);
  });

  it('labels and colours every condition of the live list: waiting, starting, running, failed', async () => {
    sessionCatalog();
    service([
      {
        id: WAITING,
        status: { condition: 'pending', message: "Waiting for a free GPU: you're next", status: false },
        ...launched,
      },
      {
        id: STARTING,
        status: { condition: 'pending', message: 'Starting USD Viewer 1.2.0', status: false },
        ...launched,
      },
      { ...ready, id: RUNNING, ...launched },
      failed,
    ]);
    renderRoute('/sessions');
    const expected = [
      [WAITING, 'Waiting', 'MuiChip-colorInfo', 'HourglassEmptyIcon'],
      [STARTING, 'Starting', 'MuiChip-colorInfo', 'AutorenewIcon'],
      [RUNNING, 'Running', 'MuiChip-colorSuccess', 'CheckCircleIcon'],
      [FAILED, 'Failed', 'MuiChip-colorError', 'ErrorIcon'],
    ] as const;
    for (const [id, label, colour, icon] of expected) {
      const row = await rowOf(id);
      const chip = badge(row, label);
      expect(chip, label).toHaveClass(colour);
      expect(within(chip).getByTestId(icon)).toBeInTheDocument();
    }
    // Where it waits is said under its badge; a running session's badge says all.
    expect(within(await rowOf(WAITING)).getByText("Waiting for a free GPU: you're next")).toBeInTheDocument();
    expect(within(await rowOf(RUNNING)).queryByText('Ready')).not.toBeInTheDocument();
    // Only what waits or runs has a viewer and an End.
    expect(screen.getAllByRole('link', { name: /^Open viewer of / })).toHaveLength(3);
    expect(screen.getAllByRole('button', { name: /^End session / })).toHaveLength(3);
  });

  it('shows a session that failed (410) as failed where the service cannot list', async () => {
    sessionCatalog();
    rememberSession({ id: FAILED, ...launched, startedAt: Date.now() });
    server.use(
      http.get(api('/stream'), () => HttpResponse.json({ detail: 'Not Found' }, { status: 404 })),
      http.get(api('/stream/:id'), () =>
        HttpResponse.json({ detail: `The session failed: ${REASON}` }, { status: 410 }),
      ),
    );
    renderRoute('/sessions');
    const row = await rowOf(FAILED);
    expect(badge(row, 'Failed')).toHaveClass('MuiChip-colorError');
    expect(row).toHaveTextContent(REASON);
    expect(within(row).getByRole('button', { name: `Remove failed session ${FAILED}` })).toBeInTheDocument();
  });

  it('shows the first 8 characters of the id, the whole one in a tooltip, copied by a click', async () => {
    const user = userEvent.setup();
    sessionCatalog();
    service([{ ...ready, id: RUNNING, ...launched }]);
    renderRoute('/sessions');
    const row = await rowOf(RUNNING);
    const id = within(row).getByRole('button', { name: `Copy session id ${RUNNING}` });
    expect(id).toHaveTextContent(/^33333333$/);
    expect(row).not.toHaveTextContent(RUNNING);
    await user.hover(id);
    expect(await screen.findByRole('tooltip')).toHaveTextContent(`Session ${RUNNING}: click to copy`);
    await user.click(id);
    await waitFor(() => expect(screen.getByRole('tooltip')).toHaveTextContent(`Copied: ${RUNNING}`));
    expect(await navigator.clipboard.readText()).toBe(RUNNING);
  });

  it('names the application in the question before ending a session', async () => {
    sessionCatalog();
    service([{ ...ready, id: RUNNING, ...launched }]);
    renderRoute('/sessions');
    const row = await rowOf(RUNNING);
    await within(row).findByText('USD Viewer 1.2.0 (Default)');
    await userEvent.click(within(row).getByRole('button', { name: `End session ${RUNNING}` }));
    const dialog = await screen.findByRole('dialog', { name: 'End this session?' });
    expect(dialog).toHaveTextContent(
      'USD Viewer 1.2.0 (Default) will be stopped and its application closed.',
    );
  });
});
