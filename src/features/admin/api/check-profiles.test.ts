import { describe, expect, it } from 'vitest';
import { apps, profiles } from '../../../test/fixtures';
import { api, http, HttpResponse, server } from '../../../test/server';
import { checkProfiles } from './check-profiles';

/** Two applications with two versions each, both profiles listed everywhere: 8 profile checks. */
function catalog(onCell: () => Promise<void> = async () => {}) {
  server.use(
    http.get(api('/cfg/apps'), () => HttpResponse.json({ count: 2, items: apps.slice(0, 2) })),
    http.get(api('/cfg/apps/:id/versions'), () =>
      HttpResponse.json({ items: [{ version: '1.0.0' }, { version: '2.0.0' }] }),
    ),
    http.get(api('/cfg/apps/:id/versions/:version/profiles'), () => HttpResponse.json({ items: profiles })),
    http.get(api('/cfg/apps/:id/versions/:version/profiles/:profile'), async ({ params }) => {
      await onCell();
      if (params.profile === 'small')
        return HttpResponse.json({ detail: 'Profile does not apply.' }, { status: 404 });
      return HttpResponse.json(profiles[0]);
    }),
  );
}

describe('checkProfiles progress', () => {
  it('reports the total first, then one more for every profile checked, failed ones included', async () => {
    catalog();
    const calls: [number, number][] = [];
    const report = await checkProfiles(undefined, (checked, total) => calls.push([checked, total]));

    expect(report.rows.flatMap((r) => r.cells)).toHaveLength(8);
    expect(calls).toEqual(Array.from({ length: 9 }, (_, i) => [i, 8]));
  });

  it('stops counting once the check is cancelled', async () => {
    const controller = new AbortController();
    let cells = 0;
    catalog(async () => {
      cells += 1;
      if (cells === 3) controller.abort();
    });
    const calls: number[] = [];
    await checkProfiles(controller.signal, (checked) => calls.push(checked)).catch(() => undefined);

    expect(calls.at(-1)).toBeLessThan(8);
  });
});
