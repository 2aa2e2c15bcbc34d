/**
 * The embedded TURN relay's configuration: what coturn is told, and what it is never told (server/door/coturn.ts).
 * The relay itself runs in coturn.process.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { coturnConfig, DEFAULT_USER_QUOTA, mintSecret, type CoturnOptions } from './coturn.ts';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

function options(overrides: Partial<CoturnOptions> = {}): CoturnOptions {
  return {
    runDir: '/run/streamgate/turn',
    listenHost: '192.0.2.10',
    port: 3478,
    relayIp: '127.0.0.1',
    relayPorts: { first: 40000, last: 40099 },
    allowedPeers: ['127.0.0.2'],
    secret: 'c2VjcmV0LXNlY3JldC1zZWNyZXQ',
    log: quiet,
    ...overrides,
  };
}

/** The configuration's lines. */
const lines = (o: CoturnOptions) => coturnConfig(o).trimEnd().split('\n');
/** The values of option `name`, in order. */
const values = (o: CoturnOptions, name: string) =>
  lines(o)
    .filter((line) => line === name || line.startsWith(`${name}=`))
    .map((line) => line.slice(name.length + 1));

describe('coturnConfig', () => {
  it('listens on the TURN port of the listen host and relays from its own range', () => {
    const o = options();
    expect(values(o, 'listening-port')).toEqual(['3478']);
    expect(values(o, 'listening-ip')).toEqual(['192.0.2.10']);
    expect(values(o, 'relay-ip')).toEqual(['127.0.0.1']);
    expect(values(o, 'min-port')).toEqual(['40000']);
    expect(values(o, 'max-port')).toEqual(['40099']);
  });

  it('names no listening address when it listens on every address', () => {
    expect(values(options({ listenHost: '0.0.0.0' }), 'listening-ip')).toEqual([]);
    expect(values(options({ listenHost: '::' }), 'listening-ip')).toEqual([]);
    expect(values(options({ listenHost: '::1' }), 'listening-ip')).toEqual(['::1']);
  });

  it('takes TURN REST credentials of the secret in the realm streamgate', () => {
    const o = options();
    expect(lines(o)).toContain('use-auth-secret');
    expect(values(o, 'static-auth-secret')).toEqual([o.secret]);
    expect(values(o, 'realm')).toEqual(['streamgate']);
    // Its own user database, not the system's, which could hold other secrets.
    expect(values(o, 'userdb')).toEqual(['/run/streamgate/turn/turndb']);
  });

  it('offers plain UDP and TCP only, and no console', () => {
    const l = lines(options());
    for (const flag of ['no-cli', 'no-tls', 'no-dtls', 'no-tcp-relay', 'no-rfc5780'])
      expect(l).toContain(flag);
    for (const flag of ['no-udp', 'no-tcp', 'no-udp-relay']) expect(l).not.toContain(flag);
  });

  it('relays to the allowed peers only: all denied first, then each allowed', () => {
    const l = lines(options({ allowedPeers: ['127.0.0.2', '::1'] }));
    const denied = [
      'denied-peer-ip=0.0.0.0-255.255.255.255',
      'denied-peer-ip=::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    ];
    const allowed = ['allowed-peer-ip=127.0.0.2', 'allowed-peer-ip=::1'];
    const peerLines = l.filter((line) => /^(denied|allowed)-peer-ip=/.test(line));
    expect(peerLines).toEqual([...denied, ...allowed]);
    expect(l).toContain('no-multicast-peers');
  });

  it('allows loopback peers only when an allowed peer is on loopback', () => {
    expect(lines(options({ allowedPeers: ['127.0.0.2'] }))).toContain('allow-loopback-peers');
    expect(lines(options({ allowedPeers: ['10.0.0.5', '::1'] }))).toContain('allow-loopback-peers');
    expect(lines(options({ allowedPeers: ['0:0:0:0:0:0:0:1'] }))).toContain('allow-loopback-peers');
    expect(lines(options({ allowedPeers: ['::ffff:127.0.0.9'] }))).toContain('allow-loopback-peers');
    expect(lines(options({ allowedPeers: ['10.0.0.5', '2001:db8::1'] }))).not.toContain(
      'allow-loopback-peers',
    );
    expect(lines(options({ allowedPeers: [] }))).not.toContain('allow-loopback-peers');
  });

  it('limits allocations per user and in all: the relay range by default', () => {
    const o = options();
    expect(values(o, 'user-quota')).toEqual([String(DEFAULT_USER_QUOTA)]);
    expect(values(o, 'total-quota')).toEqual(['100']);
    const set = options({ userQuota: 4, totalQuota: 20 });
    expect(values(set, 'user-quota')).toEqual(['4']);
    expect(values(set, 'total-quota')).toEqual(['20']);
  });

  it('keeps nonces short-lived, hides its version and fingerprints its messages', () => {
    const l = lines(options());
    expect(values(options(), 'stale-nonce')).toEqual(['600']);
    expect(l).toContain('no-software-attribute');
    expect(l).toContain('fingerprint');
  });

  it('writes its pid file in the run directory and its log to stdout', () => {
    const o = options({ runDir: '/srv/turn' });
    expect(values(o, 'pidfile')).toEqual(['/srv/turn/turnserver.pid']);
    expect(values(o, 'log-file')).toEqual(['stdout']);
    expect(lines(o)).toContain('simple-log');
  });

  it('asks coturn for no log of what it does (verbose modes would name more)', () => {
    const l = lines(options());
    for (const flag of ['verbose', 'Verbose', 'log-binding']) expect(l).not.toContain(flag);
  });

  it('mentions the secret on one line only', () => {
    const o = options();
    expect(lines(o).filter((line) => line.includes(o.secret))).toEqual([`static-auth-secret=${o.secret}`]);
  });

  it('refuses values that would add lines or are not what they claim, without saying the secret', () => {
    expect(() => coturnConfig(options({ secret: 'abc\nno-auth' }))).toThrow(/secret/);
    expect(() => coturnConfig(options({ secret: 'abc\nno-auth' }))).not.toThrow(/no-auth/);
    expect(() => coturnConfig(options({ secret: '' }))).toThrow(/secret/);
    expect(() => coturnConfig(options({ secret: 'has space' }))).toThrow(/secret/);
    expect(() => coturnConfig(options({ listenHost: 'localhost' }))).toThrow(/listen host/);
    expect(() => coturnConfig(options({ relayIp: '127.0.0.1\nno-auth' }))).toThrow(/relay IP/);
    expect(() => coturnConfig(options({ allowedPeers: ['10.0.0.0/8'] }))).toThrow(/allowed peer/);
    expect(() => coturnConfig(options({ port: 0 }))).toThrow(/port/);
    expect(() => coturnConfig(options({ port: 3478.5 }))).toThrow(/port/);
    expect(() => coturnConfig(options({ relayPorts: { first: 50, last: 40 } }))).toThrow(/relay ports/);
    expect(() => coturnConfig(options({ userQuota: 0 }))).toThrow(/quota/);
    expect(() => coturnConfig(options({ runDir: '/tmp/a\nno-auth' }))).toThrow(/line break/);
  });

  it('accepts the secrets mintSecret makes', async () => {
    const secret = await mintSecret();
    expect(() => coturnConfig(options({ secret }))).not.toThrow();
  });
});

describe('mintSecret', () => {
  it('gives 32 random bytes as base64url', async () => {
    const [a, b] = await Promise.all([mintSecret(), mintSecret()]);
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});
