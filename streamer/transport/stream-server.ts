/**
 * The streaming side every Streamgate application shares, the sample application and the display host
 * alike: the signaling port (WHEP, tickets, allowed origins, viewer limit), one PeerConnection per
 * viewer on the one media port, and the fan-out of one encoded video stream (VP8 or H.264), and of the sound
 * where there is some (Opus), to all of them.
 * Who of the viewers is in control, and so whose input and messages reach the application, is decided here too
 * (people-hub.ts, protocol/people.ts). What the application draws, and what it does with input and messages, is its
 * own.
 */
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { loadOpus, type AudioStream } from '../media/audio.ts';
import type { AppMessage, InputEvent } from '../../protocol/data-channels.ts';
import type { Codec } from '../../protocol/launch.ts';
import type { Audience } from '../../protocol/people.ts';
import type { StreamSize } from '../runtime/stream-options.ts';
import { MediaPortGuard } from './media-port.ts';
import { PeopleHub } from './people-hub.ts';
import { VideoFanout } from '../media/rtp.ts';
import { parseOffer, withPeerAddress } from './sdp.ts';
import { createSignalingServer, type Health } from './signaling.ts';
import { ViewerAccess } from './viewer-access.ts';
import { loadWebRtc, Viewer, type ViewerRules } from './viewer.ts';
import { Scope } from '../runtime/scope.ts';
import { INPUT_RATE, MESSAGES_RATE, noDrops, type Drop } from './viewer-traffic.ts';
import { watchEventLoop } from '../runtime/event-loop-watch.ts';
import type { TicketScope } from '../../protocol/viewer-ticket.ts';
import { announceReady } from '../../protocol/ready-line.ts';
import type { FilesFolder } from '../files/folder.ts';
import { filesRoutes } from '../files/routes.ts';

/** Where and for whom the application streams. */
export interface StreamServerOptions {
  sessionId: string;
  host: string;
  signalingPort: number;
  mediaPort: number;
  fps: number;
  /** The session's codec: every viewer gets the one encoder's packets, so one whose offer lacks it is refused. */
  codec?: Codec;
  maxViewers: number;
  allowedOrigins: readonly string[] | null;
  /** Null: any viewer is accepted (the application run alone). */
  viewerSecret: Uint8Array | null;
  /** No packet from a viewer for this long ends it (15 s); one that sends keep-alives, 4 s (viewer-liveness.ts). */
  silenceTimeoutMs?: number;
  /** Ask browsers that can to show each frame as soon as it is decoded (see `rewrite` in rtp.ts). */
  zeroPlayoutDelay?: boolean;
  /** Where the encoder's RTP goes, when the application started its encoder first; else one is made here. */
  fanout?: VideoFanout;
  /** The application's sound; without it viewers get no audio track (a profile's `audio: false`). */
  sound?: AudioStream | null;
  /** How long after the ready line the application's preparation waits for the service's probe (`PROBE_WAIT_MS`). */
  probeWaitMs?: number;
  /** The session's folder, served under /files to the holders of a files ticket (streamer/files/). */
  files?: FilesFolder | null;
  log?: (line: string) => void;
}

/** What the stream server asks of the application, beside the events it tells it (`StreamEvents`). */
export interface StreamApplication {
  /** `messages` events that change nothing: the only ones a viewer not in control may send. */
  queries: ReadonlySet<string>;
  /** The stream's size now; watched only once the application is ready (`untilReady`). */
  size(): StreamSize;
  /** Resolves when the application is ready to be watched; without it, the application is ready once it listens. */
  untilReady?: Promise<void>;
  /**
   * The application's own start-up that viewers need but the service's probe does not (the sample scene's
   * canvas): run once the port listens and the ready line is out, before the WebRTC stack loads, so no viewer
   * joins before it is done. A throw fails the start as the stack's would.
   */
  prepare?: () => void;
}

/** What happens among the viewers, as the application hears it. */
export interface StreamEvents {
  /** An `input` event of the viewer in control. */
  input: [event: InputEvent, viewer: Viewer];
  /** A `messages` event of the viewer in control, or a query of anyone's: the answers go to `viewer`. */
  message: [message: AppMessage, viewer: Viewer];
  /** The number of viewers changed; `controlling`: 1 when one of them is in control, else 0. */
  viewers: [count: number, controlling: number];
  /** Control changed hands (to nobody: null): what the previous one held down (keys, buttons) should be let go. */
  control: [controller: Viewer | null];
  /** A viewer's `messages` channel opened. */
  messagesOpen: [viewer: Viewer];
}

/** The log line of a viewer's first drop of each kind; later ones are only counted (/health). */
const DROP_LINES: Record<Drop, string> = {
  malformedInput: 'sent an input event that is malformed or out of bounds; such events are dropped',
  inputOverRate: `sends input faster than ${INPUT_RATE.perSecond} events a second; the excess is dropped`,
  malformedMessages: 'sent a malformed message; such messages are dropped',
  messagesOverRate: `sends messages faster than ${MESSAGES_RATE.perSecond} a second; the excess is dropped`,
};

/**
 * The service's probe (GET /health) is answered before the application's preparation and the WebRTC stack
 * hold up the event loop: they wait for it, or this long after the ready line (an application run alone).
 */
const PROBE_WAIT_MS = 50;
/** Viewers that left, remembered so that their late goodbye is answered 204, not 404. */
const LEFT_KEPT = 32;

/**
 * The stream server of one application, made in the application's scope: its viewers, each in a scope of its
 * own, the people among them, and the signaling port. Events tell the application what the viewers do; it
 * listens to them before `listen`.
 */
export class StreamServer extends EventEmitter<StreamEvents> {
  /** Where the encoder's RTP goes. */
  readonly fanout: VideoFanout;
  /**
   * The application's state for the service's probe, null until it is ready. Ready once the application says so
   * (CONTRACT section 11: it answers on its signaling port), not at its first keyframe: a viewer who connects sooner
   * gets that keyframe as it comes, and the launch's page, ticket and offer overlap the encoder's start (cold launch
   * POST 297 -> 246 ms). An encoder that fails before its first frame ends the application (media/video-pipeline.ts).
   * Neither application becomes unready again.
   */
  readonly health: () => Health | null;
  private readonly log: (line: string) => void;
  private readonly viewerMap = new Map<string, Viewer>();
  /** The last viewers that left, by id: a goodbye that arrives after the connection closed finds its viewer gone. */
  private readonly left = new Map<string, Viewer>();
  private readonly mediaPort: MediaPortGuard;
  /** Tickets (a control ticket serves one connection), the stop of sharing and the viewer limits. */
  private readonly access: ViewerAccess;
  /** Messages dropped from every viewer so far; each viewer's first drop of a kind is logged. */
  private readonly dropped = noDrops();
  private readonly told = new Map<string, Set<Drop>>();
  /** Who is here and who controls: counted again after each change of either. */
  private readonly people: PeopleHub<Viewer>;
  private readonly rules: ViewerRules;
  private readonly server: Server;
  /** The port, the event loop's watch and the viewers: the server's own, undone by `close`. */
  private readonly own = new Scope();
  private readonly probed: Promise<void>;
  private ready = false;

  constructor(
    scope: Scope,
    private readonly options: StreamServerOptions,
    private readonly app: StreamApplication,
  ) {
    super();
    scope.defer(() => this.close());
    this.log = options.log ?? (() => undefined);
    this.fanout = options.fanout ?? new VideoFanout(options.fps, options.codec);
    this.mediaPort = new MediaPortGuard(options.host, options.mediaPort);
    const secret = options.viewerSecret;
    this.access = new ViewerAccess({ sessionId: options.sessionId, secret, maxViewers: options.maxViewers });
    if (!secret)
      this.log('no viewer secret was given: any viewer that reaches the signaling port is accepted');
    this.people = new PeopleHub<Viewer>({
      onChange: () => this.emit('viewers', this.viewerMap.size, this.people.controller() ? 1 : 0),
      onControl: (controller) => this.emit('control', controller),
      log: this.log,
    });
    this.rules = { queries: app.queries, controls: (viewer) => this.people.controls(viewer) };
    let probed: () => void = () => undefined;
    this.probed = new Promise<void>((resolve) => (probed = resolve));
    this.health = () => {
      probed();
      return this.ready
        ? { viewers: this.viewerMap.size, ...app.size(), dropped: { ...this.dropped } }
        : null;
    };
    this.server = createSignalingServer(
      {
        authorize: (ticket) => this.access.check(ticket),
        offer: (sdp, scope, ticket, peer) => this.offer(sdp, scope, ticket, peer),
        remove: (id, ticket) => {
          const viewer = this.viewerMap.get(id);
          if (!viewer) return this.left.get(id)?.madeWith(ticket) ? 'removed' : 'unknown';
          if (!viewer.madeWith(ticket)) return 'other';
          viewer.close();
          return 'removed';
        },
        health: this.health,
        stopSharing: async (ticket) => {
          const dropped = await this.access.stopSharing(ticket);
          if (dropped !== null)
            this.log(`sharing stopped: earlier watch tickets refused, ${dropped} watchers dropped`);
          return dropped;
        },
      },
      {
        allowedOrigins: options.allowedOrigins,
        files: options.files ? filesRoutes(options.files, options.sessionId, secret) : null,
      },
    );
  }

  /** Whether the application is ready to be watched (`untilReady`). */
  get isReady(): boolean {
    return this.ready;
  }

  /** The port actually bound (0 asks the system, in tests). */
  get signalingPort(): number {
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : this.options.signalingPort;
  }

  /** Viewers connected or connecting. */
  viewers(): number {
    return this.viewerMap.size;
  }

  /**
   * Starts the signaling port and loads the WebRTC stack; resolves once both are done. An application that
   * starts its encoder and draws its first frame before calling this loads the stack while ffmpeg starts.
   */
  async listen(): Promise<void> {
    const { server, options, app } = this;
    this.own.defer(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    this.own.defer(() => {
      for (const viewer of [...this.viewerMap.values()]) viewer.close();
    });
    this.own.defer(() => this.people.close());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.signalingPort, options.host, () => resolve());
    });
    // From here on, viewers and the service wait on this process's event loop.
    this.own.defer(watchEventLoop(this.log));
    void (app.untilReady ?? Promise.resolve()).then(() => {
      this.ready = true;
      announceReady();
    });
    // The application's preparation and the WebRTC stack (about 25 ms, half of it holding up the event loop) run
    // once the service can see the application ready, not before: the first offer comes a page change later, and
    // awaits the stack anyway (Viewer.answer). Either failing fails the start, whose scope closes the port. An
    // application without a preparation, whose readiness waits for something else (the display host's program),
    // loads the stack at once.
    if (app.prepare) {
      let waited: NodeJS.Timeout | undefined;
      await Promise.race([
        this.probed,
        new Promise((resolve) => (waited = setTimeout(resolve, options.probeWaitMs ?? PROBE_WAIT_MS))),
      ]);
      clearTimeout(waited);
      // The probe's answer is written once its handler's promises settle.
      await new Promise((resolve) => setImmediate(resolve));
    }
    app.prepare?.();
    await Promise.all([loadWebRtc(), options.sound ? loadOpus() : undefined]);
  }

  /**
   * Sends an application event to every viewer, to the viewer in control only, or to the owners (viewers of a
   * control ticket, in control or not: the session's own people, who may reach its files).
   */
  broadcast(message: AppMessage, to: Audience = 'all'): void {
    if (to === 'control') return this.people.controller()?.sendMessage(message);
    for (const viewer of this.viewerMap.values())
      if (to === 'all' || !viewer.watchOnly) viewer.sendMessage(message);
  }

  /** Stops every viewer and the signaling port; idempotent. */
  close(): Promise<void> {
    return this.own.dispose();
  }

  /** Admits the viewer of an offer, in a scope of its own that gives its places back once it goes. */
  private async offer(sdp: string, scope: TicketScope, ticket: string | null, peer: string | undefined) {
    const began = performance.now();
    const { options } = this;
    const info = parseOffer(sdp, options.codec ?? 'vp8');
    const admission = await this.access.admit(ticket, scope);
    const own = new Scope();
    let viewer;
    let answer;
    try {
      own.defer(() => admission.leave());
      await this.mediaPort.acquire();
      own.defer(() => this.mediaPort.release());
      viewer = await Viewer.open(
        {
          host: options.host,
          mediaPort: options.mediaPort,
          watchOnly: scope === 'watch',
          ticket,
          silenceTimeoutMs: options.silenceTimeoutMs ?? 15_000,
          zeroPlayoutDelay: options.zeroPlayoutDelay ?? false,
          audio: options.sound?.available ?? false,
        },
        this.rules,
      );
      this.follow(viewer, own);
      answer = await viewer.answer(withPeerAddress(sdp, peer), info);
    } catch (error) {
      await own.dispose();
      // No viewer was made: its ticket may be used again.
      admission.refund();
      throw error;
    }
    this.viewerMap.set(viewer.id, viewer);
    this.people.join(viewer, scope, admission.name, () => admission.refuseTicket());
    admission.attach(() => viewer.close());
    const ms = Math.round(performance.now() - began);
    this.log(
      `viewer ${viewer.id} joined${viewer.watchOnly ? ' (watch only)' : ''} in ${ms} ms (${this.viewerMap.size} now)`,
    );
    return { id: viewer.id, answer };
  }

  /** Hears `viewer`'s events: its media, its people requests, and its input and messages for the application. */
  private follow(viewer: Viewer, own: Scope): void {
    const { options, people, fanout, told } = this;
    viewer.on('videoOpen', () => fanout.add(viewer));
    viewer.on('audioOpen', () => viewer.audio && options.sound?.add(viewer.audio));
    viewer.on('people', (message) => people.request(message, viewer));
    viewer.on('input', (event) => {
      people.input(event, viewer);
      this.emit('input', event, viewer);
    });
    viewer.on('message', (message) => this.emit('message', message, viewer));
    viewer.on('messagesOpen', () => {
      people.greet(viewer);
      this.emit('messagesOpen', viewer);
    });
    viewer.on('dropped', (why) => {
      this.dropped[why]++;
      const kinds = told.get(viewer.id) ?? new Set();
      if (kinds.has(why)) return;
      told.set(viewer.id, kinds.add(why));
      this.log(`viewer ${viewer.id} ${DROP_LINES[why]}`);
    });
    viewer.once('closed', () => {
      void own.dispose();
      fanout.remove(viewer);
      if (viewer.audio) options.sound?.remove(viewer.audio);
      this.viewerMap.delete(viewer.id);
      // Its goodbye (DELETE) may come after its connection closed: still a 204 for the ticket that made it.
      this.left.set(viewer.id, viewer);
      if (this.left.size > LEFT_KEPT) this.left.delete(this.left.keys().next().value as string);
      told.delete(viewer.id);
      people.leave(viewer);
      this.log(`viewer ${viewer.id} left (${this.viewerMap.size} left)`);
    });
  }
}
