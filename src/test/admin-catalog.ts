/** The admin page's catalog as its tests answer it, and a way to read one cell of its profile availability table. */
import { within } from '@testing-library/react';
import { apps, profiles } from './fixtures';
import { api, http, HttpResponse, server } from './server';

const viewer = apps[0]!;
const composer = apps[1]!;

/**
 * USD Composer and USD Viewer, each with 1.0.0 and 2.0.0 (listed oldest first, as a real deployment may);
 * Default applies everywhere, Small only to 2.0.0. Every answer is recorded, to find any that failed.
 */
export function catalog() {
  const statuses: string[] = [];
  server.events.on('response:mocked', ({ request, response }) =>
    statuses.push(`${response.status} ${request.method} ${new URL(request.url).pathname}`),
  );
  server.use(
    http.get(api('/cfg/apps'), () => HttpResponse.json({ count: 2, items: [viewer, composer] })),
    http.get(api('/cfg/apps/:id/versions'), () =>
      HttpResponse.json({ count: 2, items: [{ version: '1.0.0' }, { version: '2.0.0' }] }),
    ),
    http.get(api('/cfg/apps/:id/versions/:version/profiles'), ({ params }) => {
      const items = params.version === '1.0.0' ? profiles.slice(0, 1) : profiles;
      return HttpResponse.json({ count: items.length, items });
    }),
    http.get(api('/admin/capacity'), () =>
      HttpResponse.json({ capacity: 2, running: 0, warm: 0, queued: 0, by_profile: [] }),
    ),
    // The caller is an admin: the audit log answers them.
    http.get(api('/admin/audit'), () => HttpResponse.json({ count: 0, truncated: false, items: [] })),
  );
  return statuses;
}

/** The cell of `table` in the row whose header starts with `row` and the column whose header starts with `column`. */
export function cell(table: HTMLElement, row: string, column: string): HTMLElement {
  const headers = within(table).getAllByRole('columnheader');
  const index = headers.findIndex((h) => h.textContent?.startsWith(column));
  const tr = within(table)
    .getAllByRole('row')
    .find((r) => within(r).queryByRole('rowheader')?.textContent?.startsWith(row));
  if (index < 0 || !tr) throw new Error(`No cell ${row} / ${column}`);
  return tr.querySelectorAll<HTMLElement>('th, td')[index]!;
}
