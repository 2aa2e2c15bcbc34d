import { describe, expect, it } from 'vitest';
import { canUseSessions, hashToken, isAdmin, TokensError, TokenStore } from './tokens.ts';

const store = TokenStore.parse(
  `tokens:
  - {user: alice, roles: [user], token_sha256: ${hashToken('s3cret')}}
  - {user: vera, roles: [viewer], token_sha256: ${hashToken('look')}}
  - {user: root, roles: [admin], token_sha256: ${hashToken('ROOT').toUpperCase()}}
`,
  'tokens.yaml',
);

describe('TokenStore', () => {
  it('resolves a bearer token to its user and roles', () => {
    expect(store.authenticate('Bearer s3cret')).toEqual({ user: 'alice', roles: ['user'] });
    expect(store.authenticate('bearer look')).toEqual({ user: 'vera', roles: ['viewer'] });
    expect(store.authenticate('Bearer ROOT')).toEqual({ user: 'root', roles: ['admin'] });
  });

  it('refuses missing, malformed and unknown tokens', () => {
    for (const header of [
      undefined,
      '',
      'Bearer',
      'Basic s3cret',
      'Bearer s3cre',
      'Bearer s3cret x',
      's3cret',
    ]) {
      expect(store.authenticate(header)).toBeNull();
    }
  });

  it('gives sessions to users and admins, everything to admins', () => {
    expect(canUseSessions({ user: 'v', roles: ['viewer'] })).toBe(false);
    expect(canUseSessions({ user: 'u', roles: ['user'] })).toBe(true);
    expect(isAdmin({ user: 'u', roles: ['user'] })).toBe(false);
    expect(isAdmin({ user: 'a', roles: ['admin'] })).toBe(true);
  });

  it('names the entry and the problem of a bad file', () => {
    expect(() => TokenStore.parse('tokens: nope', 'f.yaml')).toThrow(TokensError);
    expect(() => TokenStore.parse('tokens: [{user: a, roles: [root], token_sha256: x}]', 'f.yaml')).toThrow(
      'f.yaml: tokens[0]: "roles" must list some of viewer, user, admin.',
    );
    expect(() => TokenStore.parse('tokens: [{user: a, roles: [user], token_sha256: abc}]', 'f.yaml')).toThrow(
      /token_sha256" must be 64 hexadecimal digits/,
    );
  });
});
