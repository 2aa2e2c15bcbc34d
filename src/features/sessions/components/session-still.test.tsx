import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CONFIG, setFileConfig } from '../../../lib/config';
import type { Session } from '../../../lib/api-client';
import { pending, ready, sessionId } from '../../../test/fixtures';
import { narrowScreen } from '../../../test/narrow-screen';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';
import { STILL_REFRESH_MS, stillQueries } from '../api/still-queries';

const running: Session = { ...ready, app: 'usd-viewer', version: '1.2.0', profile: 'default' };
const alt = 'Recent picture of usd-viewer 1.2.0 (default)';
const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0xff, 0xd9]);

// jsdom has no object URLs: these stand in, and record what was made and revoked.
let made: string[];
let revoked: string[];
beforeEach(() => {
  // The rows name what runs from the catalog; these tests are about the still, so the catalog knows nothing.
  server.use(
    http.get(api('/cfg/apps/*'), () => HttpResponse.json({ detail: 'Not found.' }, { status: 404 })),
  );
  made = [];
  revoked = [];
  URL.createObjectURL = vi.fn(() => {
    made.push(`blob:still-${made.length + 1}`);
    return made.at(-1) as string;
  });
  URL.revokeObjectURL = vi.fn((url: string) => void revoked.push(url));
});
afterEach(() => vi.unstubAllGlobals());

/** GET /stream lists `sessions`; GET .../still answers `still` and records who asked. */
function serve(sessions: Session[], still: () => Response) {
  const asked: { id: string; authorization: string | null }[] = [];
  server.use(
    http.get(api('/stream'), () =>
      HttpResponse.json({ offset: 0, limit: 500, count: sessions.length, items: sessions }),
    ),
    http.get(api('/stream/:id/still'), ({ params, request }) => {
      asked.push({ id: String(params.id), authorization: request.headers.get('authorization') });
      return still();
    }),
  );
  return asked;
}

const picture = () => new HttpResponse(jpeg, { headers: { 'content-type': 'image/jpeg' } });

describe('the still of a session', { timeout: 30_000 }, () => {
  it('shows beside a ready session, fetched with the token, and is let go when the page goes', async () => {
    setFileConfig({ ...DEFAULT_CONFIG, token: 'still-token' });
    const asked = serve([running], picture);
    const { unmount } = renderRoute('/sessions');
    const table = await screen.findByRole('table', { name: 'Sessions' });
    const row = within(table)
      .getByRole('button', { name: `Copy session id ${sessionId}` })
      .closest('tr') as HTMLElement;
    const image = await within(row).findByRole('img', { name: alt });
    expect(image).toHaveAttribute('src', 'blob:still-1');
    expect(asked[0]).toEqual({ id: sessionId, authorization: 'Bearer still-token' });
    unmount();
    await waitFor(() => expect(revoked).toContain('blob:still-1'));
  });

  it('shows on the card of a ready session on a phone', async () => {
    narrowScreen();
    serve([running], picture);
    renderRoute('/sessions');
    const list = await screen.findByRole('list', { name: 'Sessions' });
    expect(await within(list).findByRole('img', { name: alt })).toHaveAttribute('src', 'blob:still-1');
  });

  it.each([
    ['there is no still yet', 404],
    ['the deployment lacks the endpoint', 405],
  ])('shows nothing when %s (%i)', async (_why, status) => {
    const asked = serve([running], () => HttpResponse.json({ detail: 'No.' }, { status }));
    renderRoute('/sessions');
    await screen.findByRole('table', { name: 'Sessions' });
    await waitFor(() => expect(asked).toHaveLength(1));
    expect(screen.queryByRole('img')).not.toBeInTheDocument();
    expect(made).toEqual([]);
  });

  it('is not asked for while a session is pending', async () => {
    const asked = serve([pending], picture);
    renderRoute('/sessions');
    expect(await screen.findByText('Waiting')).toBeInTheDocument();
    expect(asked).toEqual([]);
    expect(screen.queryByRole('img')).not.toBeInTheDocument();
  });

  it('is renewed every ten seconds', () => {
    expect(stillQueries.still(sessionId).refetchInterval).toBe(STILL_REFRESH_MS);
    expect(STILL_REFRESH_MS).toBe(10_000);
  });
});
