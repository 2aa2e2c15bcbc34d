/**
 * What this browser can gather with the service's relays: its own (host) candidates, and a relay candidate for
 * each way it reaches the TURN server (UDP, TCP, TLS). A relay it cannot reach gives none, and gathering then
 * waits for that relay until the browser gives up: GATHER_TIMEOUT_MS is all the check waits.
 */
import type { CheckDeps } from './check-deps';
import { newPeer } from './offer-through-door';
import { parseTurnUrl } from './turn-url';

/** Gathering that has not completed within this long is read as it stands. */
export const GATHER_TIMEOUT_MS = 5_000;

/** How many candidates of each kind were gathered. */
export interface Gathered {
  host: number;
  /** Server- or peer-reflexive: this browser's address as a STUN server saw it. */
  reflexive: number;
  relayUdp: number;
  relayTcp: number;
  relayTls: number;
  /** Relay candidates whose protocol the browser did not say. */
  relayUnknown: number;
  /** Whether the browser finished gathering (false: stopped at GATHER_TIMEOUT_MS). */
  complete: boolean;
}

/** What a candidate event says; `relayProtocol` is missing in some browsers, `url` in others. */
export interface CandidateLike {
  candidate: string;
  type?: string | null;
  relayProtocol?: string | null;
}

/** The kind of one candidate: its type, and for a relay candidate how the browser reaches the relay. */
export function candidateKind(
  candidate: CandidateLike,
  url?: string | null,
): keyof Omit<Gathered, 'complete'> {
  const type = candidate.type ?? /\styp\s+([a-z]+)/i.exec(candidate.candidate)?.[1]?.toLowerCase();
  if (type !== 'relay') return type === 'srflx' || type === 'prflx' ? 'reflexive' : 'host';
  // Without `relayProtocol`, the URL of the TURN server that gave it says how it was reached.
  const turn = url ? parseTurnUrl(url) : undefined;
  const protocol =
    candidate.relayProtocol?.toLowerCase() ?? (turn && (turn.scheme === 'turns' ? 'tls' : turn.transport));
  if (protocol === 'udp') return 'relayUdp';
  if (protocol === 'tcp') return 'relayTcp';
  if (protocol === 'tls') return 'relayTls';
  return 'relayUnknown';
}

/** Gathers candidates with `iceServers` in a fresh peer connection (a data channel's offer), then closes it. */
export async function gatherCandidates(
  deps: Pick<CheckDeps, 'createPeerConnection' | 'clock'>,
  iceServers: RTCIceServer[],
  signal?: AbortSignal,
): Promise<Gathered> {
  const found: Gathered = {
    host: 0,
    reflexive: 0,
    relayUdp: 0,
    relayTcp: 0,
    relayTls: 0,
    relayUnknown: 0,
    complete: false,
  };
  const pc = newPeer(deps, iceServers.length > 0 ? { iceServers } : {});
  const timer = new AbortController();
  const stop = () => timer.abort(signal?.reason);
  signal?.addEventListener('abort', stop, { once: true });
  try {
    const complete = new Promise<true>((resolve) => {
      pc.addEventListener('icecandidate', (event) => {
        // `url` (the TURN server's that gave the candidate) is deprecated and left out of TypeScript's DOM types.
        const { candidate, url } = event as RTCPeerConnectionIceEvent & { url?: string | null };
        // The null candidate (or an empty one, in older browsers) ends gathering.
        if (!candidate?.candidate) return resolve(true);
        found[candidateKind(candidate, url)] += 1;
      });
      pc.addEventListener('icegatheringstatechange', () => {
        if (pc.iceGatheringState === 'complete') resolve(true);
      });
    });
    pc.createDataChannel('probe');
    const offer = await pc.createOffer();
    await pc.setLocalDescription(offer);
    found.complete =
      pc.iceGatheringState === 'complete' ||
      (await Promise.race([complete, deps.clock.wait(GATHER_TIMEOUT_MS, timer.signal).then(() => false)]));
    signal?.throwIfAborted();
    return found;
  } finally {
    signal?.removeEventListener('abort', stop);
    timer.abort();
    pc.close();
  }
}
