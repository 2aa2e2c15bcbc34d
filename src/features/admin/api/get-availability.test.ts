import { describe, expect, it } from 'vitest';
import { apps, profiles } from '../../../test/fixtures';
import { api, http, HttpResponse, server } from '../../../test/server';
import { getAvailability } from './get-availability';

describe('getAvailability', () => {
  it('names the profiles from the versions’ own lists where the wildcard is not served, and says which list failed', async () => {
    server.use(
      http.get(api('/cfg/apps'), () => HttpResponse.json({ count: 1, items: apps.slice(0, 1) })),
      http.get(api('/cfg/apps/:id/versions'), () =>
        HttpResponse.json({ count: 2, items: [{ version: '1.0.0' }, { version: '1.10.0' }] }),
      ),
      http.get(api('/cfg/apps/:id/versions/:version/profiles'), ({ params }) => {
        if (params.id === '*') return HttpResponse.json({ detail: 'Not Found' }, { status: 404 });
        if (params.version === '1.0.0')
          return HttpResponse.json({ detail: 'The catalog is being reloaded.' }, { status: 503 });
        return HttpResponse.json({ count: 2, items: profiles });
      }),
    );
    const { profiles: columns, rows } = await getAvailability();
    expect(columns.map((p) => p.name)).toEqual(['Default', 'Small']);
    expect(rows.map((r) => [r.version, r.applies])).toEqual([
      ['1.10.0', ['default', 'small']],
      ['1.0.0', []],
    ]);
    expect(rows[1]?.error).toContain('The catalog is being reloaded.');
  });
});
