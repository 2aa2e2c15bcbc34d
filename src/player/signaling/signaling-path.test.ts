import { describe, expect, it } from 'vitest';
import { chooseSignaling, parseIceLinks } from './signaling-path';

const door = (mode: 'auto' | 'door' | 'direct', url = 'https://portal.example.com/api/stream/s/whep') => ({
  mode,
  url,
});

describe('the signaling path', () => {
  it('auto: direct where the routes name the service host, the door for any other host', () => {
    expect(chooseSignaling(door('auto'), 'portal.example.com')).toBe('direct');
    expect(chooseSignaling(door('auto'), '10.77.0.11')).toBe('door');
    expect(chooseSignaling(door('auto', 'http://10.90.0.1:8080/api/stream/s/whep'), '127.0.0.1')).toBe(
      'door',
    );
  });

  it('takes the names of this machine for one host', () => {
    expect(chooseSignaling(door('auto', 'http://localhost:8080/api/stream/s/whep'), '127.0.0.1')).toBe(
      'direct',
    );
    expect(chooseSignaling(door('auto', 'http://[::1]:8080/api/stream/s/whep'), '127.0.0.1')).toBe('direct');
  });

  it('door and direct are taken as said; no door (another deployment) is direct', () => {
    expect(chooseSignaling(door('door'), 'portal.example.com')).toBe('door');
    expect(chooseSignaling(door('direct'), '10.77.0.11')).toBe('direct');
    expect(chooseSignaling(undefined, '10.77.0.11')).toBe('direct');
  });
});

describe('ICE servers from Link headers (RFC 9725 section 4.4)', () => {
  it('reads the relays with their credential, several links in one header', () => {
    const header =
      '<turn:h:3478?transport=udp>; rel="ice-server"; username="9:s"; credential="a+b/c="; credential-type="password", ' +
      '<turn:h:3478?transport=tcp>; rel="ice-server"; username="9:s"; credential="a+b/c="; credential-type="password"';
    expect(parseIceLinks(header)).toEqual([
      {
        urls: ['turn:h:3478?transport=udp', 'turn:h:3478?transport=tcp'],
        username: '9:s',
        credential: 'a+b/c=',
      },
    ]);
  });

  it('keeps STUN servers without credentials, and leaves other links and schemes out', () => {
    const header =
      '<stun:stun.example.net>; rel="ice-server", <https://x/y>; rel="ice-server", <turn:t>; rel="next"';
    expect(parseIceLinks(header)).toEqual([{ urls: ['stun:stun.example.net'] }]);
  });

  it('undoes quoted-string escapes and copes with nothing', () => {
    expect(parseIceLinks('<turn:t>; rel="ice-server"; username="a\\"b"; credential="c"')[0]?.username).toBe(
      'a"b',
    );
    expect(parseIceLinks(null)).toEqual([]);
    expect(parseIceLinks('garbage')).toEqual([]);
  });
});
