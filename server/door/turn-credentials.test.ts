import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { embeddedTurnUrls, linkHeaders, mintTurnCredential, requestHostName } from './turn-credentials.ts';

describe('TURN REST credentials', () => {
  it('names the expiry and the session, and signs the name with HMAC-SHA1 of the secret', () => {
    const { username, credential } = mintTurnCredential('s3cret', 'abc-123', 1_900_000_000.7);
    expect(username).toBe('1900000000:abc-123');
    // The password coturn recomputes from the username with the same secret.
    expect(credential).toBe(createHmac('sha1', 's3cret').update('1900000000:abc-123').digest('base64'));
  });

  it('differs with the secret, the session and the expiry', () => {
    const base = mintTurnCredential('a', 's1', 100).credential;
    expect(mintTurnCredential('b', 's1', 100).credential).not.toBe(base);
    expect(mintTurnCredential('a', 's2', 100).credential).not.toBe(base);
    expect(mintTurnCredential('a', 's1', 101).credential).not.toBe(base);
  });

  it('known answer: base64 of a 20-byte digest', () => {
    // HMAC-SHA1("key", "The quick brown fox jumps over the lazy dog") = de7c9b85b8b78aa6bc8a7a36f70a90701c9db4d9
    const digest = Buffer.from('de7c9b85b8b78aa6bc8a7a36f70a90701c9db4d9', 'hex').toString('base64');
    expect(
      createHmac('sha1', 'key').update('The quick brown fox jumps over the lazy dog').digest('base64'),
    ).toBe(digest);
  });
});

describe('the relay URLs and Link headers', () => {
  it('dials the name the browser used, over UDP then TCP; IPv6 in brackets', () => {
    expect(embeddedTurnUrls('portal.example.com', 3478)).toEqual([
      'turn:portal.example.com:3478?transport=udp',
      'turn:portal.example.com:3478?transport=tcp',
    ]);
    expect(embeddedTurnUrls('[::1]', 443)[0]).toBe('turn:[::1]:443?transport=udp');
  });

  it('writes one RFC 9725 Link header per URL with the credential', () => {
    const headers = linkHeaders([
      {
        urls: ['turn:h:3478?transport=udp', 'turn:h:3478?transport=tcp'],
        username: '9:s',
        credential: 'c/+=',
      },
    ]);
    expect(headers).toEqual([
      '<turn:h:3478?transport=udp>; rel="ice-server"; username="9:s"; credential="c/+="; credential-type="password"',
      '<turn:h:3478?transport=tcp>; rel="ice-server"; username="9:s"; credential="c/+="; credential-type="password"',
    ]);
  });

  it('escapes quotes so that a value cannot add parameters', () => {
    const [header] = linkHeaders([{ urls: ['turn:h'], username: 'a"; rel="x', credential: 'c' }]);
    expect(header).toContain('username="a\\"; rel=\\"x"');
  });

  it('takes only a plain host from a Host header', () => {
    expect(requestHostName('portal.example.com:8080')).toBe('portal.example.com');
    expect(requestHostName('10.1.2.3')).toBe('10.1.2.3');
    expect(requestHostName('[::1]:8080')).toBe('[::1]');
    expect(requestHostName('evil.com/x?y')).toBeUndefined();
    expect(requestHostName('a b')).toBeUndefined();
    expect(requestHostName(undefined)).toBeUndefined();
  });
});
