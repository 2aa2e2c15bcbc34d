/**
 * How a player exchanges its offer and answer with an application. WHEP is the first implementation; another
 * protocol (NVIDIA's streaming library, for instance) implements this interface and nothing else changes.
 */
import type { StreamEndpoint } from '../routes/parse-routes';

/** Who is connecting and how. */
export interface SignalingRequest {
  endpoint: StreamEndpoint;
  /** The local SDP offer. */
  offer: string;
  /** Watch-only viewers receive the stream but their input is ignored. */
  mode: 'control' | 'watch';
  /** A viewer ticket for `Authorization: Bearer`, where the deployment issues them (CONTRACT 14). */
  ticket?: string;
  /**
   * The WHEP endpoint to post to instead of the application's own: the service's door (CONTRACT §21), for a
   * browser that cannot reach the session's host.
   */
  url?: string;
}

/** A negotiated viewer at the application. */
export interface SignalingSession {
  /** The application's SDP answer, before any candidate rewrite. */
  answer: string;
  /** TURN relays the answer named (`Link: rel="ice-server"`, RFC 9725 §4.4); empty when none. */
  iceServers?: RTCIceServer[];
  /** Ends this viewer at the application; never throws, since the application may already be gone. */
  close(): Promise<void>;
}

/**
 * What the service's door said of the session itself, rather than of this viewer: it no longer has it
 * (`ended`, its 404) or it failed (`failed`, its 410).
 */
export type SessionGone = 'ended' | 'failed';

/** Why signaling failed; `status` is the HTTP status where there was one, `gone` the door's word on the session. */
export class SignalingError extends Error {
  override readonly name = 'SignalingError';
  constructor(
    message: string,
    readonly status?: number,
    readonly gone?: SessionGone,
  ) {
    super(message);
  }
}

/** Exchanges one offer for one answer. Implementations reject with SignalingError. */
export interface SignalingTransport {
  negotiate(request: SignalingRequest, signal?: AbortSignal): Promise<SignalingSession>;
}
