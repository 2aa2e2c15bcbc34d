import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { loadOidcSettings } from './oidc-config.ts';

const ISSUER = 'https://login.example.org/realms/site';
const BASE = { STREAMGATE_OIDC_ISSUER: ISSUER, STREAMGATE_OIDC_CLIENT_ID: 'streamgate' };

describe('the settings of sign-in with the identity provider (CONTRACT §22)', () => {
  it('are absent without an issuer, and then the service is as before', () => {
    expect(loadOidcSettings({})).toBeNull();
    expect(loadConfig({})).not.toHaveProperty('oidc');
  });

  it('give the contract defaults', () => {
    expect(loadConfig(BASE).oidc).toEqual({
      issuer: ISSUER,
      clientId: 'streamgate',
      audience: 'streamgate',
      userClaim: 'preferred_username',
      groupsClaim: 'groups',
      adminGroup: 'streamgate-admins',
      userGroup: null,
      scopes: 'openid profile',
    });
  });

  it('read every setting', () => {
    expect(
      loadOidcSettings({
        ...BASE,
        STREAMGATE_OIDC_AUDIENCE: 'api://streamgate',
        STREAMGATE_OIDC_USER_CLAIM: 'email',
        STREAMGATE_OIDC_GROUPS_CLAIM: 'https://example.org/claims/groups',
        STREAMGATE_OIDC_ADMIN_GROUP: 'gpu-admins',
        STREAMGATE_OIDC_USER_GROUP: 'gpu-users',
        STREAMGATE_OIDC_SCOPES: ' openid  profile groups openid ',
      }),
    ).toEqual({
      issuer: ISSUER,
      clientId: 'streamgate',
      audience: 'api://streamgate',
      userClaim: 'email',
      groupsClaim: 'https://example.org/claims/groups',
      adminGroup: 'gpu-admins',
      userGroup: 'gpu-users',
      scopes: 'openid profile groups',
    });
  });

  it('take a plain-HTTP issuer on this machine only, for tests and demos', () => {
    for (const issuer of [
      'http://localhost:8180/realms/dev',
      'http://127.0.0.1:48600',
      'http://[::1]:9000',
    ]) {
      expect(loadOidcSettings({ ...BASE, STREAMGATE_OIDC_ISSUER: issuer })?.issuer).toBe(issuer);
    }
    expect(() => loadOidcSettings({ ...BASE, STREAMGATE_OIDC_ISSUER: 'http://login.example.org' })).toThrow(
      'STREAMGATE_OIDC_ISSUER=http://login.example.org must be an https:// URL (http:// only on localhost or ' +
        '127.0.0.1, for tests and demos).',
    );
  });

  it.each([
    [
      { STREAMGATE_OIDC_ISSUER: 'login.example.org' },
      'is not a URL like https://login.example.org/realms/site.',
    ],
    [{ STREAMGATE_OIDC_ISSUER: `${ISSUER}?tenant=1` }, 'must have no query, fragment or credentials.'],
    [
      { STREAMGATE_OIDC_CLIENT_ID: '' },
      "STREAMGATE_OIDC_ISSUER is set but STREAMGATE_OIDC_CLIENT_ID is not: name the portal's public client.",
    ],
    [{ STREAMGATE_OIDC_USER_CLAIM: 'preferred username' }, 'must be one name without blanks.'],
    [
      { STREAMGATE_OIDC_SCOPES: 'profile email' },
      'must include openid, or the portal cannot sign anyone in.',
    ],
    [{ STREAMGATE_OIDC_SCOPES: 'openid pro\\file' }, 'STREAMGATE_OIDC_SCOPES: "pro\\file" is not a scope;'],
  ])('refuse %o in one sentence', (env, message) => {
    expect(() => loadConfig({ ...BASE, ...env })).toThrow(message);
  });

  it('refuse a setting of sign-in without the issuer', () => {
    expect(() => loadConfig({ STREAMGATE_OIDC_CLIENT_ID: 'streamgate' })).toThrow(
      'STREAMGATE_OIDC_CLIENT_ID is set but STREAMGATE_OIDC_ISSUER is not: set the issuer too, or unset ' +
        'STREAMGATE_OIDC_CLIENT_ID.',
    );
  });

  it('let a service reachable from other machines sign people in without a tokens file', () => {
    expect(loadConfig({ ...BASE, HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(() => loadConfig({ HOST: '0.0.0.0' })).toThrow(/STREAMGATE_OIDC_ISSUER/);
  });
});
