import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config';

describe('auth in config.json', () => {
  it('reads the provider and the client, with openid always among the scopes', () => {
    expect(
      parseConfig({
        auth: {
          issuer: 'https://login.example.org/realms/site',
          client_id: 'portal',
          scopes: 'profile groups',
        },
      }).auth,
    ).toEqual({
      issuer: 'https://login.example.org/realms/site',
      clientId: 'portal',
      scopes: 'openid profile groups',
    });
    expect(parseConfig({ auth: { issuer: 'http://127.0.0.1:9000', client_id: 'p' } }).auth?.scopes).toBe(
      'openid profile',
    );
  });

  it('signs no one in where auth is absent or unusable, as before', () => {
    expect(parseConfig({}).auth).toBeUndefined();
    expect(parseConfig({ auth: null }).auth).toBeUndefined();
    expect(parseConfig({ auth: { issuer: 'javascript:alert(1)', client_id: 'p' } }).auth).toBeUndefined();
    expect(parseConfig({ auth: { issuer: 'https://id.example.org' } }).auth).toBeUndefined();
    expect(parseConfig({})).not.toHaveProperty('auth');
  });
});
