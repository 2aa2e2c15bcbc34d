import { describe, expect, it } from 'vitest';
import { api, http, HttpResponse, server } from '../test/server';
import {
  ApiError,
  getApiClients,
  normaliseDetail,
  normaliseList,
  normaliseSession,
  parseRetryAfter,
  unwrap,
} from './api-client';
import { saveOverrides } from './config';
import { latestVersion, sortVersions } from './versions';

describe('api client', { timeout: 30_000 }, () => {
  it('throws a typed ApiError with detail as a string or a list, and Retry-After', async () => {
    server.use(
      http.post(api('/stream'), () =>
        HttpResponse.json({ detail: 'Queue full.' }, { status: 503, headers: { 'Retry-After': '12' } }),
      ),
    );
    const error = await unwrap(
      getApiClients().stream.POST('/stream', { body: { id: 'a', profile: 'p', version: 'latest' } }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 503, detail: 'Queue full.', retryAfter: 12 });
    expect(normaliseDetail({ detail: [{ loc: ['body', 'id'], msg: 'bad', type: 'missing' }] }, 422)).toEqual([
      { loc: ['body', 'id'], msg: 'bad', type: 'missing' },
    ]);
    expect(normaliseDetail('oops', 500)).toBe('oops');
    expect(normaliseDetail(undefined, 502)).toBe('The service answered 502.');
  });

  it('turns a network failure into status 0', async () => {
    server.use(http.get(api('/cfg/apps'), () => HttpResponse.error()));
    await expect(unwrap(getApiClients().catalog.GET('/cfg/apps', {}))).rejects.toMatchObject({ status: 0 });
  });

  it('tells an answer that is not JSON from a network failure', async () => {
    server.use(http.get(api('/cfg/apps'), () => new HttpResponse('<html>proxy</html>', { status: 200 })));
    await expect(unwrap(getApiClients().catalog.GET('/cfg/apps', {}))).rejects.toMatchObject({ status: 502 });
  });

  it('sends the bearer token and the two bases from the settings', async () => {
    saveOverrides({
      catalogUrl: 'https://host.example/applications',
      streamUrl: 'https://host.example/streaming',
      token: 't0k',
    });
    let seen = '';
    server.use(
      http.get('https://host.example/applications/cfg/apps/:id', ({ request }) => {
        seen = request.headers.get('Authorization') ?? '';
        return HttpResponse.json({ id: 'a', name: 'A', description: '', tags: [] });
      }),
    );
    const { data } = await unwrap(
      getApiClients().catalog.GET('/cfg/apps/{id}', { params: { path: { id: 'a' } } }),
    );
    expect(data.name).toBe('A');
    expect(seen).toBe('Bearer t0k');
  });

  it('accepts list envelopes with or without offset and limit, and bare arrays', () => {
    expect(normaliseList({ offset: 0, limit: 50, count: 1, items: [1] })).toEqual({
      offset: 0,
      limit: 50,
      count: 1,
      items: [1],
    });
    expect(normaliseList({ items: [1, 2] })).toEqual({ count: 2, items: [1, 2] });
    expect(normaliseList([3])).toEqual({ count: 1, items: [3] });
  });

  it('accepts routes[host] as an array or as {routes: [...]}', () => {
    const routes = [
      { description: 'signaling', protocol: 'TCP', source_port: 31000, destination_port: 49100 },
      { description: 'media', protocol: 'UDP', source_port: 31001, destination_port: 47998 },
    ];
    const status = { condition: 'ready' as const, message: '', status: true };
    const wrapped = normaliseSession({ id: 'x', status, routes: { 'gpu.example.com': { routes } } as never });
    expect(wrapped.routes).toEqual({ 'gpu.example.com': routes });
    expect(normaliseSession({ id: 'x', status, routes: { '10.0.0.2': routes } }).routes).toEqual({
      '10.0.0.2': routes,
    });
    expect(normaliseSession({ id: 'x', status })).not.toHaveProperty('routes');
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('5')).toBe(5);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter(new Date(Date.now() + 60_000).toUTCString())).toBeGreaterThan(50);
  });
});

describe('versions', { timeout: 30_000 }, () => {
  it('sorts by SemVer precedence and picks latest without pre-releases', () => {
    const sorted = sortVersions(['1.9.0', '2.0.0-rc.1', '1.10.0', '1.10.0+build.7', 'not-semver']);
    expect(sorted.map((v) => v.version)).toEqual([
      '2.0.0-rc.1',
      '1.10.0',
      '1.10.0+build.7',
      '1.9.0',
      'not-semver',
    ]);
    expect(sorted.find((v) => v.latest)?.version).toBe('1.10.0');
    expect(sorted[0]?.prerelease).toBe(true);
    expect(latestVersion(['1.0.0-alpha.1', '1.0.0-beta.2'])).toBe('1.0.0-beta.2');
  });
});
