/**
 * The media door: the one UDP address of the service that the TURN relay (coturn) may send to. Each relayed
 * viewer (a source address:port: its allocation on the relay) gets a flow, its own upstream socket connected to
 * the media address of the session it negotiated with, and datagrams go both ways through it unchanged.
 *
 * A flow opens only for an ICE check (a STUN Binding request) that names an admitted viewer's ufrag and is signed
 * with that viewer's ICE password, learned from the WHEP answer that passed through the service. Whatever else
 * comes from an unknown source is dropped, so the relay reaches the sessions' media and nothing more.
 *
 * Every Binding request on a flow gets `fixZeroTiebreaker`: Chromium's checks over TURN/TCP carry a zero
 * ICE-CONTROLLING tiebreaker, which libjuice answers with 400 (libjuice issue 355).
 */
import { randomBytes } from 'node:crypto';
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { fixZeroTiebreaker, isBindingRequest, receiverUfrag, verifyMessageIntegrity } from './stun.ts';

/** How long a flow may carry nothing, either way, before the door closes it. */
export const DEFAULT_IDLE_MS = 30_000;
/** Relayed connections of one viewer: a browser opens one per TURN allocation, a few at most. */
export const DEFAULT_MAX_FLOWS_PER_VIEWER = 8;
/** Flows over every viewer: each holds a socket (a file descriptor) of the service. */
export const DEFAULT_MAX_FLOWS = 1024;
/** Datagrams a flow holds while its upstream socket connects (a millisecond or so); more are dropped. */
const MAX_PENDING = 8;

/** What the door writes: a warning when its socket fails or a cap is reached, flows opened and closed. */
export interface MediaDoorLog {
  warn(obj: object, msg: string): void;
  debug?(obj: object, msg: string): void;
}

export interface MediaDoorOptions {
  /** The address to bind, an IPv4 literal: where coturn relays to. */
  host: string;
  /** 0 for one the system chooses (`address.port` tells). */
  port: number;
  /** A flow nothing went through for this long, either way, is closed (DEFAULT_IDLE_MS). */
  idleMs?: number;
  /** Checks that would open more flows for one ufrag, or in all, are dropped. */
  maxFlowsPerViewer?: number;
  maxFlows?: number;
  /** The clock of idleness, in ms. */
  now?: () => number;
  log?: MediaDoorLog;
}

/** A viewer whose WHEP answer went through the service, and the media address of its session's application. */
export interface AdmittedViewer {
  sessionId: string;
  /** The application's ICE ufrag and password from the answer: the first part of each check's USERNAME. */
  ufrag: string;
  pwd: string;
  target: { host: string; port: number };
}

/** The door's counters since it opened. */
export interface MediaDoorStats {
  /** Flows open now (connecting ones included). */
  flows: number;
  /** Viewers admitted and not forgotten. */
  viewers: number;
  /** Datagrams (and their bytes) from relays forwarded to sessions. */
  packetsIn: number;
  bytesIn: number;
  /** Datagrams (and their bytes) from sessions sent back to relays. */
  packetsOut: number;
  bytesOut: number;
  /** Datagrams from relays not forwarded: unknown sources, checks that do not verify, caps, full queues. */
  dropped: number;
}

interface Viewer extends AdmittedViewer {
  /** The password as the HMAC key of MESSAGE-INTEGRITY (short-term credentials: the password's UTF-8). */
  key: Buffer;
  /** What a zero ICE-CONTROLLING/CONTROLLED becomes: one value for all of the viewer's checks, as ICE wants. */
  tiebreaker: Buffer;
  flows: Set<Flow>;
  /** Whether the cap of this viewer's flows was reported: once per viewer is enough. */
  capReported: boolean;
}

interface Flow {
  sourceHost: string;
  sourcePort: number;
  viewer: Viewer;
  socket: Socket;
  lastActive: number;
  connected: boolean;
  closed: boolean;
  /** What came from the relay before the upstream socket was connected. */
  pending: Buffer[];
}

function nonZeroTiebreaker(): Buffer {
  const tiebreaker = randomBytes(8);
  tiebreaker[7] = (tiebreaker[7] as number) | 1;
  return tiebreaker;
}

/**
 * The media door's socket, its flows and the viewers it lets through. `open` it, `admit` viewers as their
 * answers pass, `forget` them as they leave, `close` it with the service.
 */
export class MediaDoor {
  private readonly viewers = new Map<string, Viewer>();
  private readonly sessions = new Map<string, Set<string>>();
  /** Flows by source host, then port: two lookups with the strings the socket gives, no key to build. */
  private readonly flows = new Map<string, Map<number, Flow>>();
  private flowCount = 0;
  private capReported = false;
  private readonly counters: Omit<MediaDoorStats, 'flows' | 'viewers'> = {
    packetsIn: 0,
    packetsOut: 0,
    bytesIn: 0,
    bytesOut: 0,
    dropped: 0,
  };
  private readonly sweeper: NodeJS.Timeout;
  private closing: Promise<void> | undefined;
  private readonly idleMs: number;
  private readonly maxFlowsPerViewer: number;
  private readonly maxFlows: number;
  private readonly now: () => number;
  private readonly log: MediaDoorLog | undefined;
  /** Made once: the hot path hands it to `fixZeroTiebreaker` without creating a closure per datagram. */
  private readonly passwordOf = (ufrag: string): string | undefined => this.viewers.get(ufrag)?.pwd;

  private constructor(
    private readonly socket: Socket,
    /** Where the door listens. */
    readonly address: { host: string; port: number },
    options: MediaDoorOptions,
  ) {
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.maxFlowsPerViewer = options.maxFlowsPerViewer ?? DEFAULT_MAX_FLOWS_PER_VIEWER;
    this.maxFlows = options.maxFlows ?? DEFAULT_MAX_FLOWS;
    this.now = options.now ?? Date.now;
    this.log = options.log;
    socket.on('message', (packet, source) => this.fromRelay(packet, source));
    // Sends report nothing without a callback; what reaches here is rare (a receive failing), never per datagram.
    socket.on('error', (error) => this.log?.warn({ err: error }, 'The media door socket failed'));
    // A look each quarter of the idle time (each second at most): a flow closes within one look of idleMs.
    const every = Math.min(1000, Math.max(10, Math.floor(this.idleMs / 4)));
    this.sweeper = setInterval(() => this.sweep(), every);
    this.sweeper.unref();
  }

  /** Binds the door's socket; rejects naming the address when it cannot (taken, not an address of this host). */
  static async open(options: MediaDoorOptions): Promise<MediaDoor> {
    const socket = createSocket({ type: 'udp4' });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind({ address: options.host, port: options.port, exclusive: true }, () => {
          socket.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      try {
        socket.close();
      } catch {
        // Closed already: nothing is held.
      }
      const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new Error(`The media door cannot bind UDP ${options.host}:${options.port} (${why}).`, {
        cause: error,
      });
    }
    const bound = socket.address();
    return new MediaDoor(socket, { host: bound.address, port: bound.port }, options);
  }

  /**
   * A viewer's answer went through the service: checks that name its ufrag and verify with its password may
   * open flows to `target`. Admitting a ufrag again with other credentials or another target starts it afresh.
   */
  admit(viewer: AdmittedViewer): void {
    if (this.closing) return;
    const known = this.viewers.get(viewer.ufrag);
    if (known) {
      const same =
        known.sessionId === viewer.sessionId &&
        known.pwd === viewer.pwd &&
        known.target.host === viewer.target.host &&
        known.target.port === viewer.target.port;
      if (same) return;
      this.forget(viewer.ufrag);
    }
    this.viewers.set(viewer.ufrag, {
      sessionId: viewer.sessionId,
      ufrag: viewer.ufrag,
      pwd: viewer.pwd,
      target: { host: viewer.target.host, port: viewer.target.port },
      key: Buffer.from(viewer.pwd, 'utf8'),
      tiebreaker: nonZeroTiebreaker(),
      flows: new Set(),
      capReported: false,
    });
    let ufrags = this.sessions.get(viewer.sessionId);
    if (!ufrags) this.sessions.set(viewer.sessionId, (ufrags = new Set()));
    ufrags.add(viewer.ufrag);
  }

  /** The viewer is gone: its checks no longer open flows, and its flows close now. */
  forget(ufrag: string): void {
    const viewer = this.viewers.get(ufrag);
    if (!viewer) return;
    this.viewers.delete(ufrag);
    const ufrags = this.sessions.get(viewer.sessionId);
    ufrags?.delete(ufrag);
    if (ufrags?.size === 0) this.sessions.delete(viewer.sessionId);
    for (const flow of [...viewer.flows]) this.closeFlow(flow, 'forgotten');
  }

  /** The session ended: every viewer of it is forgotten and every flow to it closes now. */
  forgetSession(sessionId: string): void {
    for (const ufrag of [...(this.sessions.get(sessionId) ?? [])]) this.forget(ufrag);
  }

  stats(): MediaDoorStats {
    return { flows: this.flowCount, viewers: this.viewers.size, ...this.counters };
  }

  /** Closes the door's socket and every flow's; later calls wait for the same close. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.sweeper);
      for (const byPort of this.flows.values())
        for (const flow of byPort.values()) this.closeFlow(flow, 'closed');
      this.viewers.clear();
      this.sessions.clear();
      await new Promise<void>((resolve) => this.socket.close(() => resolve()));
    })();
    return this.closing;
  }

  /**
   * The hot path: a datagram of a known source goes up its flow's socket, with nothing allocated here (but for the
   * ufrag of an ICE check, a few a second).
   */
  private fromRelay(packet: Buffer, source: RemoteInfo): void {
    const flow = this.flows.get(source.address)?.get(source.port);
    if (flow === undefined) {
      this.openFlow(packet, source);
      return;
    }
    // A check for another viewer on a known source: coturn gave this relay port to a new allocation after the old
    // one ended (a viewer gone without its DELETE, a restart of coturn). The source now belongs to the viewer the
    // check names, if it is admitted and the check is signed; never to the old flow's session.
    if (isBindingRequest(packet) && receiverUfrag(packet) !== flow.viewer.ufrag) {
      this.closeFlow(flow, 'taken over');
      this.openFlow(packet, source);
      return;
    }
    flow.lastActive = this.now();
    const out = fixZeroTiebreaker(packet, this.passwordOf, flow.viewer.tiebreaker);
    if (flow.connected) this.forward(flow, out);
    else if (flow.pending.length < MAX_PENDING) flow.pending.push(out);
    else this.counters.dropped += 1;
  }

  private forward(flow: Flow, packet: Buffer): void {
    this.counters.packetsIn += 1;
    this.counters.bytesIn += packet.length;
    // No callback: a failed send of one datagram is a lost datagram, as on the wire.
    flow.socket.send(packet);
  }

  private fromApplication(flow: Flow, packet: Buffer): void {
    if (flow.closed) return;
    flow.lastActive = this.now();
    this.counters.packetsOut += 1;
    this.counters.bytesOut += packet.length;
    this.socket.send(packet, flow.sourcePort, flow.sourceHost);
  }

  /** A source without a flow: only a signed check of an admitted viewer opens one, within the caps. */
  private openFlow(packet: Buffer, source: RemoteInfo): void {
    // Port 0 cannot be answered (send throws); it is no relay.
    if (this.closing || source.port === 0 || !isBindingRequest(packet)) {
      this.counters.dropped += 1;
      return;
    }
    const ufrag = receiverUfrag(packet);
    const viewer = ufrag === undefined ? undefined : this.viewers.get(ufrag);
    if (!viewer || !verifyMessageIntegrity(packet, viewer.key)) {
      this.counters.dropped += 1;
      return;
    }
    if (viewer.flows.size >= this.maxFlowsPerViewer) {
      this.counters.dropped += 1;
      if (!viewer.capReported) {
        viewer.capReported = true;
        this.log?.warn(
          { sessionId: viewer.sessionId, flows: viewer.flows.size },
          'A viewer reached the most relayed flows the media door opens for one viewer',
        );
      }
      return;
    }
    if (this.flowCount >= this.maxFlows) {
      this.counters.dropped += 1;
      if (!this.capReported) {
        this.capReported = true;
        this.log?.warn({ flows: this.flowCount }, 'The media door reached the most relayed flows it opens');
      }
      return;
    }

    const socket = createSocket({ type: 'udp4' });
    const flow: Flow = {
      sourceHost: source.address,
      sourcePort: source.port,
      viewer,
      socket,
      lastActive: this.now(),
      connected: false,
      closed: false,
      pending: [fixZeroTiebreaker(packet, this.passwordOf, viewer.tiebreaker)],
    };
    let byPort = this.flows.get(source.address);
    if (!byPort) this.flows.set(source.address, (byPort = new Map()));
    byPort.set(source.port, flow);
    this.flowCount += 1;
    viewer.flows.add(flow);

    socket.on('message', (answer) => this.fromApplication(flow, answer));
    socket.on('error', (error) => {
      // Once connected, errors are ICMP news from the target (ECONNREFUSED while the application restarts):
      // the flow stays until idle or forgotten. Before, the socket could not be made: the flow cannot be.
      if (flow.connected) return;
      this.log?.warn({ err: error, sessionId: viewer.sessionId }, 'A media door flow could not connect');
      this.closeFlow(flow, 'failed');
    });
    socket.once('connect', () => {
      if (flow.closed) return;
      flow.connected = true;
      for (const queued of flow.pending) this.forward(flow, queued);
      flow.pending = [];
    });
    // Binds an ephemeral port, then only the target's datagrams are received.
    socket.connect(viewer.target.port, viewer.target.host);
    this.log?.debug?.(
      { sessionId: viewer.sessionId, source: `${source.address}:${source.port}`, target: viewer.target },
      'Media door flow opened',
    );
  }

  private closeFlow(flow: Flow, why: 'idle' | 'forgotten' | 'failed' | 'closed' | 'taken over'): void {
    if (flow.closed) return;
    flow.closed = true;
    flow.pending = [];
    const byPort = this.flows.get(flow.sourceHost);
    if (byPort?.get(flow.sourcePort) === flow) {
      byPort.delete(flow.sourcePort);
      if (byPort.size === 0) this.flows.delete(flow.sourceHost);
    }
    this.flowCount -= 1;
    if (this.flowCount < this.maxFlows) this.capReported = false;
    flow.viewer.flows.delete(flow);
    try {
      flow.socket.close();
    } catch {
      // Closed already.
    }
    this.log?.debug?.(
      { sessionId: flow.viewer.sessionId, source: `${flow.sourceHost}:${flow.sourcePort}`, why },
      'Media door flow closed',
    );
  }

  private sweep(): void {
    const now = this.now();
    for (const byPort of this.flows.values()) {
      for (const flow of byPort.values())
        if (now - flow.lastActive >= this.idleMs) this.closeFlow(flow, 'idle');
    }
  }
}
