/** The MSW server of the component tests, and MSW's request helpers: each test adds the handlers it needs. */
import type * as Msw from 'msw';
import type * as MswNode from 'msw/node';

// The lint rule import-x/no-cycle crashes when it walks into msw's files (it loads msw's `node` folder
// as a resolver). A computed specifier keeps the rule out of msw; the types still come from msw.
const load = <T>(name: string): Promise<T> => import(/* @vite-ignore */ name) as Promise<T>;
const msw = await load<typeof Msw>('msw');
const mswNode = await load<typeof MswNode>('msw/node');

/** MSW's request handlers and response builder. */
export const { http, HttpResponse, delay } = msw;

/** A URL pattern for a path of the API under the default `/api` base. */
export function api(path: string): string {
  return `*/api${path}`;
}

/**
 * Shared MSW server; handlers are reset after every test to these. The app bar asks for the person's
 * sessions on every page: by default there are none, and a test that cares answers GET /stream itself.
 * The admin page asks for capacity figures, which by default the service lacks, as real deployments do.
 */
export const server = mswNode.setupServer(
  msw.http.get(api('/stream'), () => msw.HttpResponse.json({ offset: 0, limit: 500, count: 0, items: [] })),
  msw.http.get(api('/admin/capacity'), () => msw.HttpResponse.json({ detail: 'Not Found' }, { status: 404 })),
  // The admin pages and the sessions page ask whether the caller may read the audit log (is an admin): by
  // default the service has none, as other deployments of the API.
  msw.http.get(api('/admin/audit'), () => msw.HttpResponse.json({ detail: 'Not Found' }, { status: 404 })),
  // The sessions page asks for each ready session's still: by default there is none yet.
  msw.http.get(api('/stream/:id/still'), () =>
    msw.HttpResponse.json({ detail: 'This session has no still yet.' }, { status: 404 }),
  ),
  // A viewer opened by a test asks for a ticket before it connects: by default it gets one.
  msw.http.post(api('/stream/:id/tickets'), () =>
    msw.HttpResponse.json(
      { ticket: 'test-ticket', scope: 'control', expires_at: '2030-01-01T00:00:00Z' },
      { status: 201 },
    ),
  ),
);
