/**
 * The door (CONTRACT §21): what the service needs to play every session through its own address. It mints the
 * TURN credentials a viewer gets with its ticket and its WHEP answer, adds the media door's candidate to the
 * answers that pass through the service, and tells the media door which viewers it may let through.
 */
import type { DoorConfig, SignalingMode } from './door-config.ts';
import type { MediaDoor } from './media-door.ts';
import { embeddedTurnUrls, mintTurnCredential, requestHostName, type IceServer } from './turn-credentials.ts';

/**
 * How long a TURN credential lasts. The relay checks it at each refresh of an allocation (every few minutes),
 * so it must outlast a viewer's connection, not just its start; a reconnect gets a new one with its ticket.
 * It opens nothing but the media door, which lets through only viewers whose answer it saw (media-door.ts).
 */
export const TURN_CREDENTIAL_TTL_S = 12 * 3600;

/** The relay a viewer is given, when there is one. */
export type Relay =
  { kind: 'embedded'; port: number; secret: string } | { kind: 'site'; urls: string[]; secret: string };

/** The door's figures, for /admin/capacity and /metrics. */
export interface DoorFigures {
  signaling: SignalingMode;
  relay: 'embedded' | 'site' | 'none';
  /** Why there is no relay, when the service wanted one (coturn missing, its port taken). */
  relayProblem?: string;
  /** Viewers the media door lets through, and the flows (relayed connections) open now. */
  relayedViewers: number;
  relayedFlows: number;
  /** Bytes through the media door since the start, to the sessions and back. */
  relayBytesIn: number;
  relayBytesOut: number;
  /** WHEP offers answered through the service since the start. */
  offers: number;
}

// a=candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type>
const ICE_UFRAG = /^a=ice-ufrag:(\S+)\r?$/m;
const ICE_PWD = /^a=ice-pwd:(\S+)\r?$/m;
/**
 * Below the application's own host candidate (2122317823), so that a browser that reaches the application
 * plays directly, and only one that cannot goes through the relay.
 */
const DOOR_PRIORITY = 1677721855;

/** The ICE credentials of an answer, which the media door checks each relayed viewer's first request with. */
export function iceCredentials(answer: string): { ufrag: string; pwd: string } | undefined {
  const ufrag = ICE_UFRAG.exec(answer)?.[1];
  const pwd = ICE_PWD.exec(answer)?.[1];
  return ufrag && pwd ? { ufrag, pwd } : undefined;
}

/**
 * The answer with the media door's candidate added to each media section, after the application's own (kept
 * as they are), before `a=end-of-candidates`. Line endings are kept.
 */
export function withDoorCandidate(answer: string, door: { host: string; port: number }): string {
  const eol = answer.includes('\r\n') ? '\r\n' : '\n';
  const candidate = `a=candidate:sgdoor 1 UDP ${DOOR_PRIORITY} ${door.host} ${door.port} typ host`;
  const lines = answer.split(eol);
  const ending = lines.at(-1) === '' ? lines.pop() : undefined;
  const out: string[] = [];
  let section: string[] | null = null;
  const flush = () => {
    if (!section) return;
    const end = section.indexOf('a=end-of-candidates');
    section.splice(end === -1 ? section.length : end, 0, candidate);
    out.push(...section);
  };
  for (const line of lines) {
    if (line.startsWith('m=')) {
      flush();
      section = [line];
    } else if (section) section.push(line);
    else out.push(line);
  }
  flush();
  if (ending !== undefined) out.push(ending);
  return out.join(eol);
}

/** The most viewers the door remembers at once, over every session. */
const MAX_VIEWERS = 4096;

export class Door {
  private offers = 0;
  /** The viewers let through, by their WHEP resource id: their session and ICE ufrag. */
  private readonly viewers = new Map<string, { sessionId: string; ufrag: string }>();

  constructor(
    readonly config: DoorConfig,
    /** Null: no relay (none configured, or the embedded one could not start: `relayProblem` says why). */
    private readonly relay: Relay | null,
    readonly mediaDoor: MediaDoor | null,
    private readonly publicHost: string,
    readonly relayProblem?: string,
    private readonly nowS: () => number = () => Date.now() / 1000,
  ) {}

  /**
   * The relays for one viewer of `sessionId`, with a fresh credential, named by the host the browser reached the
   * service by (`hostHeader`), never a node's; none without a relay.
   */
  iceServers(sessionId: string, hostHeader: string | undefined): IceServer[] {
    if (!this.relay || !this.mediaDoor) return [];
    const urls =
      this.relay.kind === 'site'
        ? this.relay.urls
        : embeddedTurnUrls(requestHostName(hostHeader) ?? this.publicHost, this.relay.port);
    const credential = mintTurnCredential(this.relay.secret, sessionId, this.nowS() + TURN_CREDENTIAL_TTL_S);
    return [{ urls, ...credential }];
  }

  /**
   * An answer that goes back through the service: the media door learns the viewer (its ICE credentials and its
   * application's media address), and the answer gains the door's candidate. Without a media door it is kept.
   */
  admit(
    sessionId: string,
    viewerId: string | undefined,
    answer: string,
    target: { host: string; port: number },
  ): string {
    this.offers += 1;
    const door = this.mediaDoor;
    const ice = iceCredentials(answer);
    if (!door || !ice) return answer;
    door.admit({ sessionId, ufrag: ice.ufrag, pwd: ice.pwd, target });
    if (viewerId) this.viewers.set(viewerId, { sessionId, ufrag: ice.ufrag });
    // Viewers that never said goodbye are forgotten with their session; this bounds a session that lives long.
    if (this.viewers.size > MAX_VIEWERS) {
      const [oldest] = this.viewers.keys();
      if (oldest !== undefined) this.leave(oldest);
    }
    return withDoorCandidate(answer, door.address);
  }

  /** The viewer left (its DELETE went through): the media door forgets it and closes its flows. */
  leave(viewerId: string): void {
    const viewer = this.viewers.get(viewerId);
    if (!viewer) return;
    this.viewers.delete(viewerId);
    this.mediaDoor?.forget(viewer.ufrag);
  }

  /** Forgets the viewers of sessions that are no longer ready (ended, failed, restarted elsewhere). */
  sweep(isLive: (sessionId: string) => boolean): void {
    const gone = new Set<string>();
    for (const [viewerId, viewer] of this.viewers) {
      if (isLive(viewer.sessionId)) continue;
      gone.add(viewer.sessionId);
      this.viewers.delete(viewerId);
    }
    for (const sessionId of gone) this.mediaDoor?.forgetSession(sessionId);
  }

  figures(): DoorFigures {
    const stats = this.mediaDoor?.stats();
    return {
      signaling: this.config.signaling,
      relay: this.relay?.kind ?? 'none',
      ...(this.relayProblem ? { relayProblem: this.relayProblem } : {}),
      relayedViewers: stats?.viewers ?? 0,
      relayedFlows: stats?.flows ?? 0,
      relayBytesIn: stats?.bytesIn ?? 0,
      relayBytesOut: stats?.bytesOut ?? 0,
      offers: this.offers,
    };
  }
}
