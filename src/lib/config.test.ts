import { describe, expect, it } from 'vitest';
import { api, http, HttpResponse, server } from '../test/server';
import {
  baseUrlProblem,
  clearOverrides,
  getConfig,
  loadConfig,
  OVERRIDES_KEY,
  parseConfig,
  resolveBaseUrl,
  saveOverrides,
} from './config';

describe('config', { timeout: 30_000 }, () => {
  it('reads config.json at start-up and keeps defaults for what is missing or wrong', async () => {
    server.use(
      http.get('*/config.json', () =>
        HttpResponse.json({
          catalogUrl: 'https://h/applications',
          streamUrl: 42,
          token: 'abc',
          signaling: 'door',
        }),
      ),
    );
    const config = await loadConfig('/config.json');
    expect(config).toEqual({
      catalogUrl: 'https://h/applications',
      streamUrl: '/api',
      player: 'whep',
      token: 'abc',
      signaling: 'door',
    });
    expect(parseConfig(null)).toEqual({
      catalogUrl: '/api',
      streamUrl: '/api',
      player: 'whep',
      token: null,
      signaling: 'auto',
    });
    expect(parseConfig({ signaling: 'sideways' }).signaling).toBe('auto');
  });

  it('falls back to the defaults when config.json is missing', async () => {
    server.use(http.get('*/config.json', () => new HttpResponse(null, { status: 404 })));
    expect(await loadConfig('/config.json')).toMatchObject({ catalogUrl: '/api', token: null });
  });

  it('lets this browser override the URLs and token, and forget them again', () => {
    saveOverrides({ streamUrl: '/streaming', token: 't' });
    expect(getConfig()).toMatchObject({ catalogUrl: '/api', streamUrl: '/streaming', token: 't' });
    clearOverrides();
    expect(getConfig()).toMatchObject({ streamUrl: '/api', token: null });
  });

  it('takes http(s) addresses and paths as API bases, and nothing else, even from storage', () => {
    for (const ok of ['/api', 'api', 'https://host/applications', 'http://127.0.0.1:8080/api'])
      expect(baseUrlProblem(ok), ok).toBeUndefined();
    for (const bad of ['javascript:alert(1)', ' JavaScript:alert(1)', 'data:text/plain,x', 'file:///etc', ''])
      expect(baseUrlProblem(bad), bad).toEqual(expect.any(String));
    localStorage.setItem(OVERRIDES_KEY, JSON.stringify({ catalogUrl: 'javascript:alert(1)', token: 't' }));
    expect(getConfig()).toMatchObject({ catalogUrl: '/api', token: 't' });
  });

  it('resolves a relative base against the page without a trailing slash', () => {
    expect(resolveBaseUrl('/api/')).toBe(`${location.origin}/api`);
    expect(resolveBaseUrl('https://h.example/x')).toBe('https://h.example/x');
    expect(api('/x')).toBe('*/api/x');
  });
});
