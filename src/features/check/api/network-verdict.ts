/** What the gathered candidates mean for a stream, in words: which way it can go, and what is in the way. */
import { StepFailure, type StepPass } from './check-report';
import { GATHER_TIMEOUT_MS, type Gathered } from './gather-candidates';
import type { TurnUrl } from './turn-url';

/** "1 host, 1 relay over UDP, 0 relay over TCP" (and the kinds that were found besides). */
function counts(found: Gathered): string {
  const parts = [
    `${found.host} host (direct)`,
    `${found.relayUdp} relay over UDP`,
    `${found.relayTcp} relay over TCP`,
    ...(found.relayTls > 0 ? [`${found.relayTls} relay over TLS`] : []),
    ...(found.relayUnknown > 0 ? [`${found.relayUnknown} relay of an unknown protocol`] : []),
    ...(found.reflexive > 0 ? [`${found.reflexive} reflexive`] : []),
  ];
  return `Candidates: ${parts.join(', ')}${found.complete ? '' : ` (gathering stopped after ${GATHER_TIMEOUT_MS / 1000} s)`}.`;
}

/** `host:port` of a relay as a person types it. */
const where = (url: TurnUrl) => `${url.host}:${url.port}`;

/** "a", "a and b", "a, b and c". */
function list(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** The sentence of a relay that cannot be reached at all, naming its ports. */
function unreachable(relays: readonly TurnUrl[]): StepFailure {
  const places = [...new Set(relays.map(where))];
  const hosts = [...new Set(relays.map((r) => r.host))];
  const ports = [...new Set(relays.map((r) => r.port))];
  const first = relays[0];
  if (places.length === 1 && first) {
    const { host, port } = first;
    return new StepFailure(
      `The relay at ${host}:${port} cannot be reached over UDP or TCP (port ${port} is blocked): ask your ` +
        `network administrator to open port ${port} (UDP and TCP) to ${host}, or use another network.`,
    );
  }
  const openings = ports.map((port) => {
    const ways = [...new Set(relays.filter((r) => r.port === port).map((r) => r.transport.toUpperCase()))];
    return `port ${port} (${ways.join(' and ')})`;
  });
  return new StepFailure(
    `The relay at ${list(places)} cannot be reached over UDP or TCP (ports ${list(ports.map(String))} are ` +
      `blocked): ask your network administrator to open ${list(openings)} to ${list(hosts)}, or use another network.`,
  );
}

/**
 * The network step's verdict from the relays the service offered and what was gathered with them. Any relay
 * candidate is a way in; a relay reached only over TCP works but is worth a word; no relay offered leaves
 * only direct play, which is said but is no failure (a deployment may not need one).
 */
export function networkVerdict(relays: readonly TurnUrl[], found: Gathered): StepPass {
  const detail = counts(found);
  if (relays.length === 0)
    return { detail, warning: 'The service offers no relay: only direct play is possible.' };
  if (found.relayUdp > 0) return { detail };
  const overTcp = found.relayTcp + found.relayTls;
  if (overTcp > 0) {
    const udp = relays.find((r) => r.transport === 'udp');
    if (!udp) return { detail };
    return {
      detail,
      warning:
        `UDP to port ${udp.port} is blocked: the stream will go over TCP, a little slower; ask for UDP to ` +
        `port ${udp.port} to be opened.`,
    };
  }
  if (found.relayUnknown > 0) return { detail };
  const failure = unreachable(relays);
  throw new StepFailure(`${failure.detail} ${detail}`, failure.advice);
}
