/**
 * The one object a page uses to watch a session: given the ready session's routes, it negotiates through a
 * signaling transport, shows the video, forwards input, samples stats and reconnects when media is lost.
 * Whether the session waits, runs or has ended is the page's to follow; it never asks the service.
 * Failures are `state` events, never rejected promises.
 */
import { parseAppMessage } from './data-channels/app-messages';
import { CURSOR_IMAGE_EVENT, cursorStyle } from './data-channels/cursor-image';
import { FrameWatch } from './frames/frame-watch';
import { PeerSession } from './connection/peer-session';
import { TypedEmitter } from './events/typed-emitter';
import { InputController } from './input/input-controller';
import type { InputEvent } from './input/input-events';
import { PeopleState, request, type PeopleRequest } from './people/people-state';
import type { PlayerEvents, PlayerOptions, PlayerState, ResizeOptions, ViewerTicket } from './player-types';
import { chooseSignaling } from './signaling/signaling-path';
import { SignalingError } from './signaling/signaling-transport';
import { ReconnectPolicy } from './reconnect/reconnect-policy';
import { parseRoutes, RoutesError } from './routes/parse-routes';
import { WhepTransport } from './signaling/whep-transport';
import { StatsSampler } from './stats/stats-sampler';
import { StreamResizer } from './input/stream-resizer';

function mark(name: string) {
  // Marks feed bench/launch.ts; a page without the User Timing API still plays.
  globalThis.performance?.mark?.(name);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * How long a playing picture may stand still before it counts as frozen: half again the once-a-second
 * refresh the display host sends of a picture that does not change (streamer/display/capture.ts), so that a
 * quiet terminal never reads as stopped.
 */
const STALL_MS = 1500;

/** What a shared link's player says when the owner has stopped sharing (the application refuses its ticket). */
export const SHARING_STOPPED =
  'The owner stopped sharing this session: this link no longer plays. Ask them for a new link to watch again.';

/** What a viewer an owner removed reads (protocol/people.ts): it cannot come back with the same ticket. */
export const REMOVED_TEXT = "The session's owner removed you from this session.";
/** What a removed viewer's link says when it is opened again: the application refuses its ticket (403). */
export const REMOVED_LINK_TEXT =
  "The session's owner removed you from this session: this link no longer connects you. Ask them for a new link.";

/** The final state a shared link's player takes from a refusal, or undefined where it may try again. */
function sharedLinkVerdict(error: SignalingError): PlayerState | undefined {
  if (error.gone === 'failed')
    return { kind: 'ended', reason: 'This session failed, and can no longer be watched.', failed: true };
  if (error.gone === 'ended') return { kind: 'ended', reason: 'This session has ended.' };
  if (error.status === 401) return { kind: 'withdrawn', reason: SHARING_STOPPED };
  // The application refuses a ticket whose viewer an owner removed (protocol/people.ts), for good.
  if (error.status === 403) return { kind: 'removed', reason: REMOVED_LINK_TEXT };
  return undefined;
}

/** Watches one session in one video element. */
export class Player extends TypedEmitter<PlayerEvents> {
  private current: PlayerState = { kind: 'idle' };
  private peer: PeerSession | undefined;
  private input: InputController | undefined;
  private resizer: StreamResizer | undefined;
  private frames: FrameWatch | undefined;
  private readonly policy: ReconnectPolicy;
  private readonly stats: StatsSampler;
  /** Who is here and who controls; the player sends input only while it does. */
  private readonly people: PeopleState;
  /** The application's pointer image as a CSS cursor (cursorImage), shown while this viewer is in control. */
  private cursor: string | undefined;
  private generation = 0;
  private seq = 0;
  private stopped = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private connectTimer: ReturnType<typeof setTimeout> | undefined;
  private videoCleanup: (() => void) | undefined;
  private sound = false;
  private shown: MediaStream | undefined;
  /** The relays last given for this session (a ticket reply, a door's answer), kept for the reconnects. */
  private iceServers: RTCIceServer[] = [];
  /** The service has no door endpoint (404 or 405 to an offer there): signal straight to the application. */
  private noDoor = false;
  /** A shared link's direct connection went unanswered: the door says next whether the session is still there. */
  private askDoor = false;

  constructor(private readonly options: PlayerOptions) {
    super();
    this.policy = new ReconnectPolicy(options.reconnect);
    this.stats = new StatsSampler(options.statsIntervalMs ?? 1000, (sample) => {
      this.frames?.sampled(sample.framesDecoded);
      this.emit('stats', sample);
    });
    this.people = new PeopleState(options.mode !== 'watch', {
      people: (payload) => this.emit('people', payload),
      pointer: (payload) => this.emit('pointer', payload),
      control: (inControl) => this.controlChanged(inControl),
      removed: () => {
        this.emit('removed', REMOVED_TEXT);
        this.finish({ kind: 'removed', reason: REMOVED_TEXT });
      },
    });
  }

  /** The current state. */
  get state(): PlayerState {
    return this.current;
  }

  /**
   * Changes the limits of the stream size this viewer asks for (`maxWidth`, `maxHeight`: a person's choice of a
   * smaller picture); the size they give is asked for at once where the stream plays, else once it does.
   */
  setResize(resize: ResizeOptions): void {
    this.options.resize = resize;
    this.resizer?.setOptions(resize);
  }

  /** The stats samples of the last minute, oldest first. */
  get statsHistory() {
    return this.stats.history.list();
  }

  /** Whether the current connection carries sound: an audio track arrived (see the `sound` event). */
  get hasSound(): boolean {
    return this.sound;
  }

  /** The stream the video element plays, with its video and (where the application has sound) audio track. */
  get stream(): MediaStream | undefined {
    return this.shown;
  }

  /** Sequence number of the last input event sent (the application echoes the last one it applied). */
  get lastInputSeq(): number {
    return this.seq;
  }

  /**
   * Whether this viewer's input reaches the program: an owner's until the application says someone else has
   * control, a watcher's only while it was given control (see the `control` event).
   */
  get inControl(): boolean {
    return this.people.inControl;
  }

  /** Whether nothing can follow: the session is over, the shared link was withdrawn, or an owner removed this viewer. */
  private get over(): boolean {
    return (
      this.current.kind === 'ended' || this.current.kind === 'withdrawn' || this.current.kind === 'removed'
    );
  }

  /** Starts connecting; does nothing once it is over or while already connected. */
  connect(): void {
    if (this.over || this.peer || this.current.kind === 'connecting') return;
    // During a reconnect countdown this connects at once instead of starting a second attempt beside it.
    clearTimeout(this.retryTimer);
    this.stopped = false;
    this.policy.reset();
    void this.attempt(1);
  }

  /** Tries again at once: from `failed`, or to skip a reconnect countdown. */
  retry(): void {
    if (this.current.kind !== 'failed' && this.current.kind !== 'reconnecting') return;
    clearTimeout(this.retryTimer);
    this.policy.reset();
    this.stopped = false;
    void this.attempt(1);
  }

  /** Stops watching and ends this viewer at the application; no reconnect follows. */
  disconnect(): void {
    this.stopped = true;
    this.teardown();
    if (!this.over) this.setState({ kind: 'disconnected' });
  }

  /** Says the session is over (the page ended it, or learnt so from the service); no reconnect follows. */
  markEnded(reason = 'This session has ended.'): void {
    this.finish({ kind: 'ended', reason });
  }

  /** Sends an application event on `messages`; false when the channel is not open. */
  sendMessage(eventType: string, payload: Record<string, unknown> = {}): boolean {
    if (!this.post(eventType, payload)) return false;
    this.emit('message', { direction: 'out', event_type: eventType, payload, time: Date.now() });
    return true;
  }

  /** A watcher asks for control (`true`), or no longer does; false when the channel is not open. */
  askControl(asking: boolean): boolean {
    return this.ask(request.ask(asking));
  }

  /** Gives control to viewer `id` (an owner, or the one in control, may); false when the channel is not open. */
  giveControl(id: string): boolean {
    return this.ask(request.give(id));
  }

  /** Takes control (an owner may, whoever has it); false when the channel is not open. */
  takeControl(): boolean {
    return this.ask(request.take());
  }

  /** Removes watcher `id` for good (an owner may); false when the channel is not open. */
  removeViewer(id: string): boolean {
    return this.ask(request.remove(id));
  }

  /** Sends an input event (numbered) on `input`; false when it cannot be sent or this viewer is not in control. */
  sendInput(event: InputEvent): boolean {
    const channel = this.peer?.input;
    // The application would ignore it: sent anyway, it would only take the channel's room.
    if (!this.people.inControl || channel?.readyState !== 'open') return false;
    this.seq += 1;
    channel.send(JSON.stringify({ ...event, seq: this.seq }));
    return true;
  }

  /** A request about people: for the stream server, not the application, so not in the message log. */
  private ask([eventType, payload]: PeopleRequest): boolean {
    return this.post(eventType, payload);
  }

  private post(eventType: string, payload: Record<string, unknown>): boolean {
    const channel = this.peer?.messages;
    if (channel?.readyState !== 'open') return false;
    channel.send(JSON.stringify({ event_type: eventType, payload }));
    return true;
  }

  /** Input follows control: listened to while this viewer has it, not at all otherwise. */
  private controlChanged(inControl: boolean) {
    if (inControl) {
      // Still connecting: the attempt attaches it once the application has answered.
      if (this.peer && this.current.kind !== 'connecting') this.attachInput();
      if (this.cursor) this.options.video.style.cursor = this.cursor;
    } else {
      this.detachInput();
      this.options.video.style.cursor = '';
    }
    this.emit('control', inControl);
  }

  private setSound(sound: boolean) {
    if (sound === this.sound) return;
    this.sound = sound;
    this.emit('sound', sound);
  }

  private setState(state: PlayerState) {
    this.current = state;
    this.emit('state', state);
  }

  private async attempt(attempt: number) {
    const generation = ++this.generation;
    const stale = () => generation !== this.generation || this.stopped;
    this.setState({ kind: 'connecting', attempt });
    mark('sg:connect-start');
    let endpoint;
    try {
      endpoint = parseRoutes(this.options.routes);
    } catch (error) {
      return this.lost(error instanceof RoutesError ? error.message : message(error));
    }
    const path = this.noDoor
      ? 'direct'
      : this.askDoor
        ? 'door'
        : chooseSignaling(this.options.door, endpoint.host);
    const doorUrl = path === 'door' ? this.options.door?.url : undefined;
    // Asked for at once, and awaited only when the offer is ready to go: the two overlap.
    const grant = Promise.resolve()
      .then(() => this.options.ticket?.())
      .then((given): ViewerTicket | undefined => (typeof given === 'string' ? { ticket: given } : given))
      .catch((error: unknown) => {
        throw new Error(`The service could not be reached: ${message(error)}`);
      });
    // Awaited by the negotiation; a peer that cannot be made leaves it unawaited, and that is no error.
    grant.catch(() => undefined);
    const ticket = grant.then((given) => given?.ticket);
    ticket.catch(() => undefined);
    const mode = this.options.mode ?? 'control';
    // Through the door, relays are gathered from the start: the ticket's come first (a few ms on the service's
    // own origin), so the offer carries relay candidates at once.
    if (doorUrl) {
      const servers = await grant.then((given) => given?.iceServers).catch(() => undefined);
      if (stale()) return;
      if (servers && servers.length > 0) this.iceServers = servers;
    }
    let peer: PeerSession;
    try {
      peer = this.createPeer(generation, doorUrl ? this.iceServers : []);
    } catch (error) {
      // No WebRTC at all (an old or locked-down browser): retrying cannot help.
      return this.setState({
        kind: 'failed',
        reason: `This browser cannot play the stream: ${message(error)}`,
      });
    }
    this.peer = peer;
    this.connectTimer = setTimeout(
      () => this.lost('No video arrived in time.'),
      this.options.connectTimeoutMs ?? 15_000,
    );
    let named: RTCIceServer[];
    try {
      named = await peer.negotiate(
        this.options.transport ?? new WhepTransport(),
        endpoint,
        mode,
        ticket,
        doorUrl,
      );
    } catch (error) {
      if (stale()) return;
      const verdict =
        this.options.sharedLink && error instanceof SignalingError ? sharedLinkVerdict(error) : undefined;
      if (verdict) return this.finish(verdict);
      // Another deployment of the API has no door (CONTRACT §21): its routes are then the way in, at once.
      const status = error instanceof SignalingError ? error.status : undefined;
      if (doorUrl && (status === 404 || status === 405) && !this.noDoor) {
        this.noDoor = true;
        this.generation += 1;
        this.teardown();
        return void this.attempt(attempt);
      }
      // Nobody answered at the application's port: gone with its session, or out of reach. A shared link has
      // no API to ask which; the door, on the service's own origin, says (and plays, where it is only out of reach).
      const unanswered = error instanceof SignalingError && status === undefined;
      if (this.options.sharedLink && unanswered && !doorUrl && this.options.door && !this.noDoor)
        this.askDoor = true;
      this.lost(message(error));
      return;
    }
    if (stale()) return;
    // A viewer with no relays yet (a watch link has no ticket reply) learns them from the door's answer, and
    // connects again at once with them: without, a browser that reaches only the service would never play.
    if (doorUrl && peer.iceServers.length === 0 && named.length > 0) {
      this.iceServers = named;
      this.generation += 1;
      this.teardown();
      return void this.attempt(attempt);
    }
    if (stale()) return;
    mark('sg:answer');
    if (this.current.kind === 'connecting') this.setState({ kind: 'waiting-for-video', attempt });
    this.stats.start(peer.pc);
    if (this.people.inControl) this.attachInput();
  }

  private createPeer(generation: number, iceServers: RTCIceServer[]): PeerSession {
    return new PeerSession(
      this.options.createPeerConnection ?? ((c) => new RTCPeerConnection(c)),
      {
        onTrack: (stream, track) => {
          if (generation !== this.generation) return;
          if (track.kind === 'audio') this.setSound(true);
          // The second track comes in the stream the element already plays; setting it again would reload it.
          if (this.shown !== stream) this.showStream(stream, generation);
        },
        onMessage: (data) => {
          const parsed = parseAppMessage(data);
          if (!parsed || generation !== this.generation) return;
          if (parsed.event_type === CURSOR_IMAGE_EVENT) this.showCursor(parsed.payload);
          else if (!this.people.read(parsed))
            this.emit('message', { ...parsed, direction: 'in', time: Date.now() });
        },
        // Whichever comes last, the first frame or the open input channel, sends the wanted size.
        onInputOpen: () => this.resizer?.sendNow(),
        onLost: (reason) => {
          if (generation === this.generation) this.lost(reason);
        },
      },
      iceServers,
    );
  }

  private showStream(stream: MediaStream, generation: number) {
    const { video } = this.options;
    this.videoCleanup?.();
    this.shown = stream;
    video.srcObject = stream;
    const onFrame = () => {
      if (
        generation !== this.generation ||
        this.current.kind === 'playing' ||
        this.current.kind === 'stalled'
      )
        return;
      clearTimeout(this.connectTimer);
      mark('sg:first-frame');
      this.policy.reset();
      this.setState({ kind: 'playing' });
      this.watchFrames(generation);
      // Only now: a new size restarts the application's encoder, which would delay the first frame.
      this.resizer?.sendNow();
    };
    // Whichever the browser reports first: a decoded frame, loaded data, or playback.
    const events = ['loadeddata', 'playing'] as const;
    for (const type of events) video.addEventListener(type, onFrame);
    this.videoCleanup = () => {
      for (const type of events) video.removeEventListener(type, onFrame);
    };
    video.requestVideoFrameCallback?.(onFrame);
    const played = video.play?.();
    // Autoplay may be refused until a gesture; the picture then waits for one, the connection does not fail.
    played?.catch?.(() => undefined);
  }

  /** From the first frame on, the state follows the frames: a picture that stopped is not said to play. */
  private watchFrames(generation: number) {
    this.frames?.stop();
    this.frames = new FrameWatch(this.options.video, {
      stallMs: this.options.stallMs ?? STALL_MS,
      sampleMs: this.options.statsIntervalMs ?? 1000,
      onStall: (since) => {
        if (generation === this.generation && this.current.kind === 'playing')
          this.setState({ kind: 'stalled', since });
      },
      onResume: () => {
        if (generation === this.generation && this.current.kind === 'stalled')
          this.setState({ kind: 'playing' });
      },
    });
  }

  /** Stops for good in `state` (the session is over, or the link withdrawn): no reconnect follows. */
  private finish(state: PlayerState) {
    this.stopped = true;
    this.generation += 1;
    this.teardown();
    this.setState(state);
  }

  /**
   * The application's pointer as this viewer's cursor over the video while it is in control, moving with its
   * hand (the application then leaves it out of the video); kept for when it gets control, if it has not.
   */
  private showCursor(payload: Record<string, unknown>) {
    const style = cursorStyle(payload);
    if (!style) return;
    this.cursor = style;
    if (this.people.inControl) this.options.video.style.cursor = style;
  }

  private detachInput() {
    this.input?.detach();
    this.input = undefined;
    this.resizer?.dispose();
    this.resizer = undefined;
  }

  private attachInput() {
    const { video } = this.options;
    this.input?.detach();
    this.input = new InputController({
      element: video,
      streamSize: () => ({ width: video.videoWidth, height: video.videoHeight }),
      send: (event) => this.sendInput(event),
      keepKey: this.options.keepKey,
      onKeyboard: (capture) => this.emit('keyboard', capture),
    });
    if (this.options.resize?.enabled !== false && !this.resizer) {
      this.resizer = new StreamResizer(
        video,
        this.options.resize ?? {},
        (w, h) => this.current.kind === 'playing' && this.sendInput({ type: 'resize', width: w, height: h }),
      );
    }
  }

  /** Media stopped: back off and try again (the page, which follows the session, says when it has ended). */
  private lost(reason: string) {
    if (this.stopped) return;
    this.generation += 1;
    this.teardown();
    const next = this.policy.next();
    if (!next) return this.setState({ kind: 'failed', reason });
    const retryAt = Date.now() + next.delayMs;
    this.setState({ kind: 'reconnecting', attempt: next.attempt, delayMs: next.delayMs, retryAt, reason });
    this.retryTimer = setTimeout(() => void this.attempt(next.attempt), next.delayMs);
  }

  private teardown() {
    clearTimeout(this.retryTimer);
    clearTimeout(this.connectTimer);
    this.stats.stop();
    this.frames?.stop();
    this.frames = undefined;
    this.videoCleanup?.();
    this.videoCleanup = undefined;
    this.detachInput();
    this.peer?.close();
    this.peer = undefined;
    this.shown = undefined;
    this.people.reset();
    this.cursor = undefined;
    this.options.video.style.cursor = '';
    this.setSound(false);
  }
}
