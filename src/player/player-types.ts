/** Types of the Player facade: its options, states and events. */
import type { AppMessage } from './data-channels/app-messages';
import type { KeyboardCapture } from './input/input-controller';
import type { PeerConnectionFactory } from './connection/peer-session';
import type { PeoplePayload, PointerPayload } from './people/people-state';
import type { ReconnectOptions } from './reconnect/reconnect-policy';
import type { DoorOptions } from './signaling/signaling-path';
import type { SignalingTransport } from './signaling/signaling-transport';
import type { StatsSample } from './stats/stats-sample';

/** What a person sees. */
export type PlayerState =
  | { kind: 'idle' }
  | { kind: 'connecting'; attempt: number }
  | { kind: 'waiting-for-video'; attempt: number }
  | { kind: 'playing' }
  /**
   * Connected, but the picture has not moved for a while (see frames/frame-watch.ts): what is on screen is
   * frozen. `since`: the `Date.now()` time of the last frame. A frame brings back `playing`.
   */
  | { kind: 'stalled'; since: number }
  /** `retryAt` is a `Date.now()` time, for a countdown. */
  | { kind: 'reconnecting'; attempt: number; delayMs: number; retryAt: number; reason: string }
  | { kind: 'failed'; reason: string }
  /** The session is over; `failed` where it failed rather than ended. No reconnect follows. */
  | { kind: 'ended'; reason: string; failed?: boolean }
  /** A shared link's ticket was refused: its owner stopped sharing. Final: no reconnect follows. */
  | { kind: 'withdrawn'; reason: string }
  /** An owner removed this viewer (protocol/people.ts): its ticket connects no more. Final: no reconnect follows. */
  | { kind: 'removed'; reason: string }
  | { kind: 'disconnected' };

/** A ticket and the relays that came with it. */
export interface ViewerTicket {
  ticket: string;
  iceServers?: RTCIceServer[];
}

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
  /**
   * The ready session's `routes`, in either shape (see routes/parse-routes.ts): the page hands them over
   * once the session is ready, and stops the player when the session has ended.
   */
  routes: unknown;
  /**
   * A viewer ticket for each connection attempt, where the deployment issues them (undefined: none), with the
   * TURN relays the service gave with it (the ticket reply's `ice_servers`, CONTRACT §21); rejecting means the
   * service could not be reached, and the player tries again later.
   */
  ticket?: () => Promise<string | ViewerTicket | undefined>;
  /**
   * The service's door (CONTRACT §21): its WHEP endpoint for this session, and when to use it. Absent (another
   * deployment of the API): straight to the application, as its routes say.
   */
  door?: DoorOptions;
  /**
   * The ticket this viewer connects with. A watcher sends no input unless an owner gives it control; an owner
   * sends it until the application says someone else has control (see the `control` event).
   */
  mode?: 'control' | 'watch';
  /**
   * The player plays a shared watch link, with no API to follow the session by: the word of the application
   * and of the service's door at a reconnect is final. The application refusing the link's ticket (401) means
   * the owner stopped sharing (`withdrawn`); the door's "no such session" (404) or "failed" (410), that the
   * session is over (`ended`). Neither is retried. A direct connection that nobody answers asks the door next.
   */
  sharedLink?: boolean;
  transport?: SignalingTransport;
  reconnect?: ReconnectOptions;
  createPeerConnection?: PeerConnectionFactory;
  statsIntervalMs?: number;
  /** Time from the start of an attempt to the first frame before it counts as failed. */
  connectTimeoutMs?: number;
  /** How long a playing picture may stand still before the player says so (`stalled`); default 1500 ms. */
  stallMs?: number;
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
  /**
   * Whether the connection carries sound: true when its audio track arrives, false when the connection ends.
   * An application without sound rejects the audio in its answer, and this never comes.
   */
  sound: boolean;
  /**
   * Everyone connected to the session, in the order they connected, with who is in control, after each change
   * (protocol/people.ts); null once the connection that said so has ended. An application that predates
   * people never sends it.
   */
  people: PeoplePayload | null;
  /** Where the pointer of someone else in control is, in stream pixels; null when nobody else is in control. */
  pointer: PointerPayload | null;
  /** This viewer got control (true: its input reaches the program) or lost it (false: it sends none). */
  control: boolean;
  /** An owner removed this viewer: the sentence to show. The state then becomes `removed`. */
  removed: string;
}
