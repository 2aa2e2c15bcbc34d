import { describe, expect, it } from 'vitest';
import { Door, iceCredentials, withDoorCandidate } from './door.ts';
import type { DoorConfig } from './door-config.ts';
import type { MediaDoor } from './media-door.ts';

const ANSWER = [
  'v=0',
  'o=- 1 1 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=group:BUNDLE 0 1',
  'm=video 9 UDP/TLS/RTP/SAVPF 96',
  'a=mid:0',
  'a=ice-ufrag:AbCd',
  'a=ice-pwd:passwordpasswordpassword',
  'a=candidate:1 1 UDP 2122317823 10.77.0.11 47001 typ host',
  'a=end-of-candidates',
  'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
  'a=mid:1',
  'a=candidate:1 1 UDP 2122317823 10.77.0.11 47001 typ host',
  '',
].join('\r\n');

const config: DoorConfig = {
  signaling: 'auto',
  turn: { kind: 'embedded', port: 3478, relayPorts: { first: 48000, last: 48999 } },
  mediaDoor: { host: '127.0.0.2', port: 3480 },
};

function fakeMediaDoor() {
  const admitted: unknown[] = [];
  const door = {
    address: { host: '127.0.0.2', port: 3480 },
    admit: (viewer: unknown) => admitted.push(viewer),
    stats: () => ({
      flows: 2,
      viewers: 1,
      packetsIn: 5,
      packetsOut: 6,
      bytesIn: 700,
      bytesOut: 800,
      dropped: 0,
    }),
  } as unknown as MediaDoor;
  return { door, admitted };
}

describe('the answer through the door', () => {
  it('keeps the application candidate and adds the door below it in each media section', () => {
    const out = withDoorCandidate(ANSWER, { host: '127.0.0.2', port: 3480 });
    const lines = out.split('\r\n');
    const door = 'a=candidate:sgdoor 1 UDP 1677721855 127.0.0.2 3480 typ host';
    expect(lines.filter((l) => l === door)).toHaveLength(2);
    expect(lines.indexOf(door)).toBe(lines.indexOf('a=end-of-candidates') - 1);
    expect(lines.filter((l) => l.includes('10.77.0.11 47001'))).toHaveLength(2);
    expect(out.endsWith('\r\n')).toBe(true);
    expect(out.replaceAll(`${door}\r\n`, '')).toBe(ANSWER);
  });

  it('reads the ICE credentials', () => {
    expect(iceCredentials(ANSWER)).toEqual({ ufrag: 'AbCd', pwd: 'passwordpasswordpassword' });
    expect(iceCredentials('v=0\r\n')).toBeUndefined();
  });

  it('tells the media door the viewer and its application', () => {
    const { door, admitted } = fakeMediaDoor();
    const gate = new Door(config, { kind: 'embedded', port: 3478, secret: 's' }, door, '127.0.0.1');
    const out = gate.admit('sid', 'v1', ANSWER, { host: '10.77.0.11', port: 47001 });
    expect(out).toContain('127.0.0.2 3480 typ host');
    expect(admitted).toEqual([
      {
        sessionId: 'sid',
        ufrag: 'AbCd',
        pwd: 'passwordpasswordpassword',
        target: { host: '10.77.0.11', port: 47001 },
      },
    ]);
    expect(gate.figures()).toMatchObject({
      relay: 'embedded',
      relayedViewers: 1,
      relayBytesIn: 700,
      offers: 1,
    });
  });
});

describe('the relays a viewer is given', () => {
  it('names the host the browser used, with a credential of the session that expires later', () => {
    const { door } = fakeMediaDoor();
    const gate = new Door(
      config,
      { kind: 'embedded', port: 3478, secret: 's' },
      door,
      '127.0.0.1',
      undefined,
      () => 1000,
    );
    const [server] = gate.iceServers('sid', 'portal.example.com:8080');
    expect(server?.urls).toEqual([
      'turn:portal.example.com:3478?transport=udp',
      'turn:portal.example.com:3478?transport=tcp',
    ]);
    expect(server?.username).toBe(`${1000 + 12 * 3600}:sid`);
    // A made-up Host header falls back to the public host.
    expect(gate.iceServers('sid', 'x/y')[0]?.urls[0]).toBe('turn:127.0.0.1:3478?transport=udp');
  });

  it("gives a site's own relay as configured", () => {
    const { door } = fakeMediaDoor();
    const gate = new Door(
      config,
      { kind: 'site', urls: ['turns:turn.site:443?transport=tcp'], secret: 's' },
      door,
      'h',
    );
    expect(gate.iceServers('sid', 'a')[0]?.urls).toEqual(['turns:turn.site:443?transport=tcp']);
  });

  it('gives none without a relay or a media door', () => {
    const { door } = fakeMediaDoor();
    expect(new Door(config, null, door, 'h', 'coturn is not installed').iceServers('sid', 'a')).toEqual([]);
    expect(
      new Door(config, { kind: 'embedded', port: 1, secret: 's' }, null, 'h').iceServers('sid', 'a'),
    ).toEqual([]);
  });
});
