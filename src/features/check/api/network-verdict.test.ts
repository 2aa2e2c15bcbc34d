/** Reading TURN URLs and candidates, and the network step's words. */
import { describe, expect, it } from 'vitest';
import { StepFailure } from './check-report';
import { candidateKind, type Gathered } from './gather-candidates';
import { networkVerdict } from './network-verdict';
import { parseTurnUrl, turnUrls } from './turn-url';

const none: Gathered = {
  host: 1,
  reflexive: 0,
  relayUdp: 0,
  relayTcp: 0,
  relayTls: 0,
  relayUnknown: 0,
  complete: false,
};

describe('TURN URLs', () => {
  it('reads host, port and transport, with the defaults of RFC 7065', () => {
    expect(parseTurnUrl('turn:portal.example.com:3478?transport=tcp')).toEqual({
      scheme: 'turn',
      host: 'portal.example.com',
      port: 3478,
      transport: 'tcp',
    });
    expect(parseTurnUrl('turn:[2001:db8::1]')).toMatchObject({
      host: '[2001:db8::1]',
      port: 3478,
      transport: 'udp',
    });
    expect(parseTurnUrl('turns:relay.example.org')).toMatchObject({ port: 5349, transport: 'tcp' });
    expect(parseTurnUrl('stun:stun.example.org:3478')).toBeUndefined();
    expect(turnUrls([{ urls: 'stun:s:1' }, { urls: ['turn:a:1', 'turns:b:2'] }]).map((u) => u.host)).toEqual([
      'a',
      'b',
    ]);
  });
});

describe('a candidate’s kind', () => {
  it('reads the type from the candidate line, and the relay’s protocol from the TURN URL where the browser does not say it', () => {
    const relay = {
      candidate: 'candidate:2 1 udp 41885439 198.51.100.7 50000 typ relay raddr 0.0.0.0 rport 0',
    };
    expect(candidateKind({ ...relay, relayProtocol: 'tcp' })).toBe('relayTcp');
    expect(candidateKind(relay, 'turn:portal.example.com:3478?transport=udp')).toBe('relayUdp');
    expect(candidateKind(relay, 'turns:portal.example.com:443')).toBe('relayTls');
    expect(candidateKind(relay)).toBe('relayUnknown');
    expect(candidateKind({ candidate: 'candidate:1 1 udp 2113937151 a.local 54321 typ host' })).toBe('host');
    expect(candidateKind({ candidate: 'candidate:3 1 udp 1677729535 203.0.113.9 1 typ srflx' })).toBe(
      'reflexive',
    );
  });
});

describe('the network verdict', () => {
  it('names every port of relays on different ports, with the way each is reached', () => {
    const relays = turnUrls([
      { urls: ['turn:relay.example.org:3478?transport=udp', 'turns:relay.example.org:443?transport=tcp'] },
    ]);
    let failure: unknown;
    try {
      networkVerdict(relays, none);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(StepFailure);
    expect((failure as StepFailure).detail).toMatch(
      /^The relay at relay\.example\.org:3478 and relay\.example\.org:443 cannot be reached over UDP or TCP \(ports 3478 and 443 are blocked\): ask your network administrator to open port 3478 \(UDP\) and port 443 \(TCP\) to relay\.example\.org, or use another network\./,
    );
  });

  it('passes a relay reached only over TCP without a warning where no UDP relay was offered', () => {
    const relays = turnUrls([{ urls: 'turn:relay.example.org:443?transport=tcp' }]);
    expect(networkVerdict(relays, { ...none, relayTcp: 1, complete: true })).toEqual({
      detail: 'Candidates: 1 host (direct), 0 relay over UDP, 1 relay over TCP.',
    });
  });
});
