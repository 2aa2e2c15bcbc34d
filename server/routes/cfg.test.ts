import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../test-support/test-support.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ tokens: true, ports: { first: 28290, last: 28299 } });
});
afterAll(async () => {
  await t.close();
});

async function get(url: string, user: 'alice' | 'vera' | null = 'vera') {
  const res = await t.app.inject({ method: 'GET', url, headers: user ? bearer(user) : {} });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> & { detail?: unknown } };
}

describe('GET /api/cfg/apps', () => {
  it('lists applications by name then id for any role', async () => {
    const { status, body } = await get('/api/cfg/apps');
    expect(status).toBe(200);
    expect(body).toEqual({
      count: 3,
      items: [
        { id: 'composer', name: 'Composer', description: 'Edit USD stages.', tags: ['editor', 'usd'] },
        { id: 'crasher', name: 'Crasher', description: 'Becomes ready, then exits.', tags: ['test'] },
        { id: 'usd-viewer', name: 'USD Viewer', description: 'Explore USD stages.', tags: ['viewer', 'usd'] },
      ],
    });
  });

  it('keeps the applications that have every tag, in repeated and comma forms', async () => {
    const ids = async (query: string) =>
      ((await get(`/api/cfg/apps?${query}`)).body.items as { id: string }[]).map((a) => a.id);
    expect(await ids('tags=usd')).toEqual(['composer', 'usd-viewer']);
    expect(await ids('tags=usd&tags=viewer')).toEqual(['usd-viewer']);
    expect(await ids('tags=usd,viewer')).toEqual(['usd-viewer']);
    expect(await ids('tags=viewer&tags=editor')).toEqual([]);
  });

  it('refuses a tag that is too long at its query loc', async () => {
    const { status, body } = await get(`/api/cfg/apps?tags=${'x'.repeat(200)}`);
    expect(status).toBe(422);
    expect(body.detail).toEqual([
      expect.objectContaining({ loc: ['query', 'tags', '0'], type: 'string_too_long' }),
    ]);
  });

  it('answers 403 Not authenticated without a token or with an unknown one', async () => {
    expect(await get('/api/cfg/apps', null)).toEqual({ status: 403, body: { detail: 'Not authenticated' } });
    const res = await t.app.inject({ url: '/api/cfg/apps', headers: { authorization: 'Bearer nope' } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ detail: 'Not authenticated' });
  });
});

describe('GET /api/cfg/apps/{id} and versions', () => {
  it('answers an application, 404 for an unknown one and 422 for a malformed id', async () => {
    expect((await get('/api/cfg/apps/usd-viewer')).body).toMatchObject({
      id: 'usd-viewer',
      name: 'USD Viewer',
    });
    expect((await get('/api/cfg/apps/nope')).status).toBe(404);
    const bad = await get('/api/cfg/apps/..%2Fetc');
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([
      expect.objectContaining({ loc: ['path', 'id'], type: 'string_pattern_mismatch' }),
    ]);
  });

  it('lists versions newest first by SemVer precedence', async () => {
    const { body } = await get('/api/cfg/apps/usd-viewer/versions');
    expect(body).toEqual({
      count: 4,
      items: [
        { version: '2.0.0-rc.1' },
        { version: '1.10.0' },
        { version: '1.9.0' },
        { version: '1.0.0+build.5' },
      ],
    });
    const composer = await get('/api/cfg/apps/composer/versions');
    expect(composer.body.items).toEqual([{ version: '0.1.0-rc.1' }, { version: '0.1.0-beta.11' }]);
  });

  it('matches a version with build metadata whether the + is raw or %2B-encoded', async () => {
    const expected = { version: '1.0.0+build.5', description: 'Built.' };
    expect(await get('/api/cfg/apps/usd-viewer/versions/1.0.0+build.5')).toEqual({
      status: 200,
      body: expected,
    });
    expect(await get('/api/cfg/apps/usd-viewer/versions/1.0.0%2Bbuild.5')).toEqual({
      status: 200,
      body: expected,
    });
    // The exact text: the same precedence without the build part is another version.
    expect((await get('/api/cfg/apps/usd-viewer/versions/1.0.0')).status).toBe(404);
  });

  it('answers 404 for a version the application lacks and 422 for one that is not SemVer', async () => {
    expect((await get('/api/cfg/apps/usd-viewer/versions/3.0.0')).status).toBe(404);
    expect((await get('/api/cfg/apps/nope/versions/1.0.0')).status).toBe(404);
    const bad = await get('/api/cfg/apps/bad%20id/versions/1.0');
    expect(bad.status).toBe(422);
    expect((bad.body.detail as { loc: string[] }[]).map((d) => d.loc)).toEqual([
      ['path', 'id'],
      ['path', 'version'],
    ]);
  });
});

describe('profiles', () => {
  const ids = async (url: string) => ((await get(url)).body.items as { id: string }[]).map((p) => p.id);

  it('lists the profiles that apply, with wildcards in the request', async () => {
    expect(await ids('/api/cfg/apps/usd-viewer/versions/1.10.0/profiles')).toEqual(['default', 'ten-only']);
    expect(await ids('/api/cfg/apps/usd-viewer/versions/1.9.0/profiles')).toEqual(['default']);
    expect(await ids('/api/cfg/apps/*/versions/*/profiles')).toEqual(['default', 'ten-only']);
    expect(await ids('/api/cfg/apps/composer/versions/*/profiles')).toEqual(['default']);
    expect(await ids('/api/cfg/apps/*/versions/1.10.0/profiles')).toEqual(['default', 'ten-only']);
  });

  it('answers 404 for an unknown application or version, and 422 for a malformed one', async () => {
    expect((await get('/api/cfg/apps/nope/versions/*/profiles')).status).toBe(404);
    expect((await get('/api/cfg/apps/usd-viewer/versions/9.9.9/profiles')).status).toBe(404);
    const bad = await get('/api/cfg/apps/usd-viewer/versions/latest/profiles');
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([expect.objectContaining({ loc: ['path', 'version'] })]);
  });

  it('answers one profile, or 404 when it does not exist or does not apply', async () => {
    expect(await get('/api/cfg/apps/usd-viewer/versions/1.10.0/profiles/ten-only')).toEqual({
      status: 200,
      body: { id: 'ten-only', name: 'Ten only', description: 'Only USD Viewer 1.10.0.' },
    });
    expect((await get('/api/cfg/apps/usd-viewer/versions/1.9.0/profiles/ten-only')).status).toBe(404);
    expect((await get('/api/cfg/apps/*/versions/*/profiles/missing')).status).toBe(404);
    const bad = await get('/api/cfg/apps/*/versions/*/profiles/-bad');
    expect(bad.body.detail).toEqual([expect.objectContaining({ loc: ['path', 'profile'] })]);
  });
});

describe('service endpoints', () => {
  it('answers health, metrics, the contract and JSON 404s under /api', async () => {
    expect((await t.app.inject('/healthz')).json()).toEqual({ status: 'ok' });
    const metrics = await t.app.inject({ url: '/metrics', headers: bearer('ada') });
    expect(metrics.body).toContain('streamgate_sessions{state="ready"}');
    expect(metrics.body).toContain('streamgate_http_request_duration_seconds_bucket');
    const spec = await t.app.inject('/api/openapi.json');
    expect(spec.json()).toMatchObject({ openapi: '3.1.0' });
    expect((await t.app.inject('/api/docs/')).statusCode).toBe(200);
    const missing = await get('/api/nothing-here');
    expect(missing.status).toBe(404);
    expect(typeof missing.body.detail).toBe('string');
    const root = await t.app.inject('/');
    expect(root.body).toContain('npm run build');
  });
});
