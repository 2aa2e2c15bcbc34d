/**
 * One negotiated peer connection to the application: recvonly video, recvonly audio (which an application
 * without sound rejects) and the `input` and `messages` channels, on which it sends a keep-alive every second.
 * It reports its end once through `onLost`; reconnecting is the player's business, not this class's.
 */
import {
  INPUT_CHANNEL,
  KEEP_ALIVE_EVERY_MS,
  KEEP_ALIVE_MESSAGE,
  MESSAGES_CHANNEL,
} from '../data-channels/app-messages';
import type { StreamEndpoint } from '../routes/parse-routes';
import type { SignalingSession, SignalingTransport } from '../signaling/signaling-transport';
import { rewriteCandidates } from './candidate-rewrite';
import { firstCandidate } from './first-candidate';

/** Builds a peer connection; replaceable for tests and for other browsers' quirks. */
export type PeerConnectionFactory = (config: RTCConfiguration) => RTCPeerConnection;

/** What the session tells its owner. */
export interface PeerSessionHandlers {
  /**
   * Called once per track that arrives, always with the same stream, which holds every track received so far:
   * the one stream a video element plays, picture and sound.
   */
  onTrack(stream: MediaStream, track: MediaStreamTrack): void;
  onMessage(data: unknown): void;
  onInputOpen(): void;
  /** Called at most once, when media stops for good. */
  onLost(reason: string): void;
}

/** How long ICE may stay `disconnected` before the connection counts as lost; it often recovers by itself. */
const DISCONNECTED_GRACE_MS = 2500;

/** Owns one RTCPeerConnection and its signaling resource. */
export class PeerSession {
  readonly pc: RTCPeerConnection;
  readonly input: RTCDataChannel;
  readonly messages: RTCDataChannel;
  private signaling: SignalingSession | undefined;
  private stream: MediaStream | undefined;
  private closed = false;
  private graceTimer: ReturnType<typeof setTimeout> | undefined;
  private keepAliveTimer: ReturnType<typeof setInterval> | undefined;

  constructor(
    createPeerConnection: PeerConnectionFactory,
    private readonly handlers: PeerSessionHandlers,
    /** TURN relays to gather candidates from (CONTRACT §21); none for a browser that plays directly. */
    readonly iceServers: RTCIceServer[] = [],
  ) {
    this.pc = createPeerConnection(
      iceServers.length > 0 ? { bundlePolicy: 'max-bundle', iceServers } : { bundlePolicy: 'max-bundle' },
    );
    this.pc.addTransceiver('video', { direction: 'recvonly' });
    this.pc.addTransceiver('audio', { direction: 'recvonly' });
    // Input must arrive in order (a button up after its down) but stale moves need no retransmission at length.
    this.input = this.pc.createDataChannel(INPUT_CHANNEL, { ordered: true });
    this.messages = this.pc.createDataChannel(MESSAGES_CHANNEL, { ordered: true });
    this.pc.addEventListener('track', (event) => this.onTrack(event));
    this.input.addEventListener('open', () => handlers.onInputOpen());
    this.messages.addEventListener('message', (event) => handlers.onMessage(event.data));
    this.messages.addEventListener('open', () => this.keepAlive());
    // A closed channel that we did not close means the application dropped this viewer.
    this.messages.addEventListener('close', () => this.lose('The application closed the connection.'));
    this.pc.addEventListener('connectionstatechange', () => this.onConnectionState());
  }

  /**
   * Sends the offer through the transport and applies the answer, rewritten to the route's host and media
   * port, unless it came through the door (`doorUrl`), which names the way in itself (the application's
   * candidate and the media door's). The ticket may still be on its way: the offer is made meanwhile, and waits
   * for it before it is sent. Resolves to the relays the answer named.
   */
  async negotiate(
    transport: SignalingTransport,
    endpoint: StreamEndpoint,
    mode: 'control' | 'watch',
    pendingTicket?: string | Promise<string | undefined>,
    doorUrl?: string,
  ): Promise<RTCIceServer[]> {
    const offer = await this.pc.createOffer();
    await this.pc.setLocalDescription(offer);
    // Not the whole gathering: the first candidate, while the ticket is on its way (first-candidate.ts).
    const [ticket] = await Promise.all([pendingTicket, firstCandidate(this.pc)]);
    const sdp = this.pc.localDescription?.sdp ?? offer.sdp ?? '';
    if (this.closed) return [];
    const signaling = await transport.negotiate({
      endpoint,
      offer: sdp,
      mode,
      ...(ticket ? { ticket } : {}),
      ...(doorUrl ? { url: doorUrl } : {}),
    });
    if (this.closed) {
      void signaling.close();
      return [];
    }
    this.signaling = signaling;
    const answer = doorUrl
      ? signaling.answer
      : rewriteCandidates(signaling.answer, { host: endpoint.host, port: endpoint.mediaPort });
    await this.pc.setRemoteDescription({ type: 'answer', sdp: answer });
    return signaling.iceServers ?? [];
  }

  /** Closes the peer and ends the viewer at the application (best effort). Safe to call twice. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.graceTimer);
    clearInterval(this.keepAliveTimer);
    void this.signaling?.close();
    this.pc.close();
  }

  /**
   * Keep-alives on `messages` from its opening on: a tab killed or a network gone without the DELETE then frees
   * this viewer's place (its owner's next one needs it) within 5 s, not when the application's 15 s of silence are
   * up (protocol/data-channels.ts). A hidden tab's timers still run once a second.
   */
  private keepAlive() {
    if (this.closed) return;
    const send = () => {
      if (this.messages.readyState !== 'open') return;
      try {
        this.messages.send(KEEP_ALIVE_MESSAGE);
      } catch {
        // The channel is closing; its close event ends this session.
      }
    };
    send();
    clearInterval(this.keepAliveTimer);
    this.keepAliveTimer = setInterval(send, KEEP_ALIVE_EVERY_MS);
  }

  private onTrack({ track, streams }: RTCTrackEvent) {
    // The application gives both tracks one msid, so the browser hands over one stream; an answer that names
    // them apart (or not at all) would leave the sound in a stream no element plays.
    if (!this.stream) this.stream = streams[0] ?? new MediaStream([track]);
    else if (!this.stream.getTracks().includes(track)) this.stream.addTrack(track);
    this.handlers.onTrack(this.stream, track);
  }

  private onConnectionState() {
    const state = this.pc.connectionState;
    clearTimeout(this.graceTimer);
    if (state === 'failed' || state === 'closed') this.lose(`The connection ${state}.`);
    else if (state === 'disconnected') {
      this.graceTimer = setTimeout(() => this.lose('The connection was interrupted.'), DISCONNECTED_GRACE_MS);
    }
  }

  private lose(reason: string) {
    if (this.closed) return;
    this.close();
    this.handlers.onLost(reason);
  }
}
