/** Types of the Player facade: its options, states and events. */
import type { AppMessage } from './data-channels/app-messages';
import type { KeyboardCapture } from './input/input-controller';
import type { PeerConnectionFactory } from './connection/peer-session';
import type { ReconnectOptions } from './reconnect/reconnect-policy';
import type { SignalingTransport } from './signaling/signaling-transport';
import type { StatsSample } from './stats/stats-sample';

/** What the service says about the session right now. */
export type SessionLookup =
  /** `ticket`: a viewer ticket for the application, where the deployment issues them. */
  | { status: 'ready'; routes: unknown; ticket?: string }
  | { status: 'pending'; message?: string }
  /** 404 or 410: the session is gone and no reconnect can bring it back. */
  | { status: 'ended'; reason?: string };

/** What a person sees. */
export type PlayerState =
  | { kind: 'idle' }
  /** `message`: what the service says while the session is still pending. */
  | { kind: 'connecting'; attempt: number; message?: string }
  | { kind: 'waiting-for-video'; attempt: number }
  | { kind: 'playing' }
  /** `retryAt` is a `Date.now()` time, for a countdown. */
  | { kind: 'reconnecting'; attempt: number; delayMs: number; retryAt: number; reason: string }
  | { kind: 'failed'; reason: string }
  | { kind: 'ended'; reason: string }
  | { kind: 'disconnected' };

/** Limits within which the stream follows the element's size. */
export interface ResizeOptions {
  enabled?: boolean;
  minWidth?: number;
  minHeight?: number;
  maxWidth?: number;
  maxHeight?: number;
  debounceMs?: number;
}

/** Settings of a Player. */
export interface PlayerOptions {
  video: HTMLVideoElement;
  /** Asks the service about the session; rejecting means the service could not be reached (then it retries). */
  lookupSession: () => Promise<SessionLookup>;
  /** Watch-only viewers send no input. */
  mode?: 'control' | 'watch';
  transport?: SignalingTransport;
  reconnect?: ReconnectOptions;
  createPeerConnection?: PeerConnectionFactory;
  statsIntervalMs?: number;
  /** How often a pending session is looked up again. */
  pendingPollMs?: number;
  /** How often the service is asked whether the session still exists while connected; 0 never. */
  sessionCheckIntervalMs?: number;
  /** Time from the start of an attempt to the first frame before it counts as failed. */
  connectTimeoutMs?: number;
  resize?: ResizeOptions;
  /** Keys the page keeps for its own shortcuts (Escape is the player's: it releases the keyboard). */
  keepKey?: (event: KeyboardEvent) => boolean;
}

/** An application event with its direction and time. */
export interface MessageRecord extends AppMessage {
  direction: 'in' | 'out';
  time: number;
}

/** Events of the Player and their payloads. */
export interface PlayerEvents {
  state: PlayerState;
  stats: StatsSample;
  message: MessageRecord;
  /** Whether keys go to the application, for a hint on how to get the keyboard back. */
  keyboard: KeyboardCapture;
}
