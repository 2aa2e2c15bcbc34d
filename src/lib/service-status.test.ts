import { afterEach, describe, expect, it } from 'vitest';
import {
  getServiceStatus,
  isGatewayFailure,
  reportReachable,
  subscribeServiceStatus,
  watchedFetch,
} from './service-status';

const base = 'http://service.test/api';
const request = () => new Request(`${base}/cfg/apps`);

describe('service status', () => {
  afterEach(() => reportReachable());

  it('tells a proxy failure from an answer of the service', () => {
    expect(isGatewayFailure(new Response('<html/>', { status: 502 }))).toBe(true);
    expect(isGatewayFailure(new Response('', { status: 504 }))).toBe(true);
    expect(
      isGatewayFailure(new Response('<html/>', { status: 503, headers: { 'Content-Type': 'text/html' } })),
    ).toBe(true);
    const queueFull = Response.json({ detail: 'Queue full.' }, { status: 503 });
    expect(isGatewayFailure(queueFull)).toBe(false);
    expect(isGatewayFailure(Response.json({ detail: 'Boom.' }, { status: 500 }))).toBe(false);
    expect(isGatewayFailure(new Response(null, { status: 403 }))).toBe(false);
  });

  it('marks the base unreachable on a network failure and reachable on the next answer', async () => {
    const changes: boolean[] = [];
    const stop = subscribeServiceStatus(() => changes.push(getServiceStatus().reachable));
    const failing = watchedFetch(base, () => Promise.reject(new TypeError('Failed to fetch')));
    await expect(failing(request())).rejects.toThrow('Failed to fetch');
    expect(getServiceStatus()).toMatchObject({ reachable: false, base });
    const since = getServiceStatus().since;
    // A second failure of the same outage changes nothing, so the banner does not flicker.
    await expect(failing(request())).rejects.toThrow();
    expect(getServiceStatus().since).toBe(since);

    const answering = watchedFetch(base, () => Promise.resolve(new Response(null, { status: 404 })));
    expect((await answering(request())).status).toBe(404);
    expect(getServiceStatus()).toMatchObject({ reachable: true, base: '' });
    stop();
    expect(changes).toEqual([false, true]);
  });

  it('says nothing when the page aborts its own request', async () => {
    const aborted = watchedFetch(base, () => Promise.reject(new DOMException('Aborted', 'AbortError')));
    await expect(aborted(request())).rejects.toThrow('Aborted');
    expect(getServiceStatus().reachable).toBe(true);
  });

  it('counts a proxy 502 as unreachable', async () => {
    const proxy = watchedFetch(base, () => Promise.resolve(new Response('<html/>', { status: 502 })));
    expect((await proxy(request())).status).toBe(502);
    expect(getServiceStatus()).toMatchObject({ reachable: false, base });
  });
});
