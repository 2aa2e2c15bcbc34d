/**
 * The streaming side every Streamgate application shares, the sample application and the display host
 * alike: the signaling port (WHEP, tickets, allowed origins, viewer limit), one PeerConnection per
 * viewer on the one media port, and the fan-out of one encoded video stream (VP8 or H.264), and of the sound
 * where there is some (Opus), to all of them.
 * Who of the viewers is in control, and so whose input and messages reach the application, is decided here too
 * (people-hub.ts, protocol/people.ts). What the application draws, and what it does with input and messages, is its
 * own.
 */
import type { Server } from 'node:http';
import { loadOpus, type AudioStream } from './audio.ts';
import type { AppMessage, InputEvent } from '../../protocol/data-channels.ts';
import type { Codec } from '../../protocol/launch.ts';
import { MediaPortGuard } from './media-port.ts';
import { PeopleHub } from './people-hub.ts';
import { VideoFanout } from './rtp.ts';
import { parseOffer, withPeerAddress } from './sdp.ts';
import { createSignalingServer, type Health } from './signaling.ts';
import { ViewerAccess } from './viewer-access.ts';
import { loadWebRtc, Viewer, type ViewerHandlers } from './viewer.ts';
import { INPUT_RATE, MESSAGES_RATE, noDrops, type Drop } from './viewer-traffic.ts';
import { watchEventLoop } from './event-loop-watch.ts';
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

/** What the application does with its viewers. */
export interface StreamApplication {
  /** `messages` events that change nothing: the only ones a viewer not in control may send. */
  queries: ReadonlySet<string>;
  /** An `input` event of the viewer in control. */
  onInput(event: InputEvent, viewer: Viewer): void;
  /** A `messages` event of the viewer in control, or a query of anyone's; returns the answers for that viewer. */
  onMessage(message: AppMessage, viewer: Viewer): AppMessage[];
  /** The stream's size once it is ready to be watched, null before. */
  readiness(): { width: number; height: number; fps: number } | null;
  /** Resolves when `readiness` first gives a size; without it, the application is ready once it listens. */
  untilReady?: Promise<void>;
  /**
   * The application's own start-up that viewers need but the service's probe does not (the sample scene's
   * canvas): run once the port listens and the ready line is out, before the WebRTC stack loads, so no viewer
   * joins before it is done. A throw fails the start as the stack's would.
   */
  prepare?: () => void;
  /** The number of viewers changed; `controlling`: 1 when one of them is in control, else 0. */
  onViewers?(count: number, controlling: number): void;
  /** Control changed hands (to nobody: null): what the previous one held down (keys, buttons) should be let go. */
  onControl?(controller: Viewer | null): void;
  /** A viewer's `messages` channel opened. */
  onMessagesOpen?(viewer: Viewer): void;
}

/** Who an application event is for (`StreamServer.broadcast`). */
export type Audience = 'all' | 'control' | 'owners';

/** A listening stream server. */
export interface StreamServer {
  /** The port actually bound (0 asks the system, in tests). */
  signalingPort: number;
  /** Where the encoder's RTP goes. */
  fanout: VideoFanout;
  health(): Health | null;
  /** Viewers connected or connecting. */
  viewers(): number;
  /**
   * Sends an application event to every viewer, to the viewer in control only, or to the owners (viewers of a
   * control ticket, in control or not: the session's own people, who may reach its files).
   */
  broadcast(message: AppMessage, to?: Audience): void;
  /** Stops every viewer and the signaling port. */
  close(): Promise<void>;
}

/** The reason an application gives up when its encoder died before it ever sent a frame, or null. */
export function encoderNeverStarted(fanout: VideoFanout, reason: string): string | null {
  return fanout.packets === 0 ? `the video encoder failed before its first frame: ${reason}` : null;
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
 * Starts the signaling port and loads the WebRTC stack; resolves once both are done. An application that
 * starts its encoder and draws its first frame before calling this loads the stack while ffmpeg starts.
 */
export async function startStreamServer(
  options: StreamServerOptions,
  app: StreamApplication,
): Promise<StreamServer> {
  const log = options.log ?? (() => undefined);
  const fanout = options.fanout ?? new VideoFanout(options.fps, options.codec);
  const viewers = new Map<string, Viewer>();
  const mediaPort = new MediaPortGuard(options.host, options.mediaPort);
  const secret = options.viewerSecret;
  // Tickets (a control ticket serves one connection), the stop of sharing and the viewer limits.
  const access = new ViewerAccess({ sessionId: options.sessionId, secret, maxViewers: options.maxViewers });
  if (!secret) log('no viewer secret was given: any viewer that reaches the signaling port is accepted');
  // Messages dropped from every viewer so far; each viewer's first drop of a kind is logged.
  const dropped = noDrops();
  const told = new Map<string, Set<Drop>>();

  /** The last viewers that left, by id: a goodbye that arrives after the connection closed finds its viewer gone. */
  const left = new Map<string, Viewer>();
  // Who is here and who controls: counted again after each change of either.
  const people: PeopleHub<Viewer> = new PeopleHub<Viewer>({
    onChange: () => app.onViewers?.(viewers.size, people.controller() ? 1 : 0),
    onControl: (controller) => app.onControl?.(controller),
    log,
  });
  const handlers: ViewerHandlers = {
    queries: app.queries,
    controls: (viewer) => people.controls(viewer),
    onPeople: (message, viewer) => people.request(message, viewer),
    onVideoOpen: (viewer) => fanout.add(viewer),
    onAudioOpen: (viewer) => viewer.audio && options.sound?.add(viewer.audio),
    onInput: (event, viewer) => {
      people.input(event, viewer);
      app.onInput(event, viewer);
    },
    onMessage: (message, viewer) => app.onMessage(message, viewer),
    onMessagesOpen: (viewer) => {
      people.greet(viewer);
      app.onMessagesOpen?.(viewer);
    },
    onDropped: (why, viewer) => {
      dropped[why]++;
      const kinds = told.get(viewer.id) ?? new Set();
      if (kinds.has(why)) return;
      told.set(viewer.id, kinds.add(why));
      log(`viewer ${viewer.id} ${DROP_LINES[why]}`);
    },
    onClosed: (viewer) => {
      fanout.remove(viewer);
      if (viewer.audio) options.sound?.remove(viewer.audio);
      viewers.delete(viewer.id);
      // Its goodbye (DELETE) may come after its connection closed: still a 204 for the ticket that made it.
      left.set(viewer.id, viewer);
      if (left.size > LEFT_KEPT) left.delete(left.keys().next().value as string);
      told.delete(viewer.id);
      people.leave(viewer);
      log(`viewer ${viewer.id} left (${viewers.size} left)`);
    },
  };

  // Ready once the application says so (CONTRACT section 11: it answers on its signaling port), not at its
  // first keyframe: a viewer who connects sooner gets that keyframe as it comes, and the launch's page, ticket
  // and offer overlap the encoder's start (cold launch POST 297 -> 246 ms). An encoder that fails before its
  // first frame ends the application (app.ts, display-host.ts). Neither application becomes unready again.
  let probed: () => void = () => undefined;
  const firstProbe = new Promise<void>((resolve) => (probed = resolve));
  const health = (): Health | null => {
    probed();
    const size = app.readiness();
    return size ? { viewers: viewers.size, ...size, dropped: { ...dropped } } : null;
  };

  const server: Server = createSignalingServer(
    {
      authorize: (ticket) => access.check(ticket),
      async offer(sdp, scope, ticket, peer) {
        const began = performance.now();
        const info = parseOffer(sdp, options.codec ?? 'vp8');
        const admission = await access.admit(ticket, scope);
        await mediaPort.acquire().catch((error: unknown) => {
          admission.refund();
          throw error;
        });
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          mediaPort.release();
          admission.leave();
        };
        const watchOnly = scope === 'watch';
        let joined;
        try {
          joined = await Viewer.answer(
            withPeerAddress(sdp, peer),
            info,
            {
              host: options.host,
              mediaPort: options.mediaPort,
              watchOnly,
              ticket,
              silenceTimeoutMs: options.silenceTimeoutMs ?? 15_000,
              zeroPlayoutDelay: options.zeroPlayoutDelay ?? false,
              audio: options.sound?.available ?? false,
            },
            { ...handlers, onClosed: (viewer) => (release(), handlers.onClosed(viewer)) },
          );
        } catch (error) {
          release();
          admission.refund();
          throw error;
        }
        const { viewer, answer } = joined;
        viewers.set(viewer.id, viewer);
        people.join(viewer, scope, admission.name, () => admission.refuseTicket());
        admission.attach(() => viewer.close());
        const ms = Math.round(performance.now() - began);
        log(
          `viewer ${viewer.id} joined${watchOnly ? ' (watch only)' : ''} in ${ms} ms (${viewers.size} now)`,
        );
        return { id: viewer.id, answer };
      },
      remove(id, ticket) {
        const viewer = viewers.get(id);
        if (!viewer) return left.get(id)?.madeWith(ticket) ? 'removed' : 'unknown';
        if (!viewer.madeWith(ticket)) return 'other';
        viewer.close();
        return 'removed';
      },
      health,
      stopSharing: async (ticket) => {
        const dropped = await access.stopSharing(ticket);
        if (dropped !== null)
          log(`sharing stopped: earlier watch tickets refused, ${dropped} watchers dropped`);
        return dropped;
      },
    },
    {
      allowedOrigins: options.allowedOrigins,
      files: options.files ? filesRoutes(options.files, options.sessionId, secret) : null,
    },
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.signalingPort, options.host, () => resolve());
  });
  // From here on, viewers and the service wait on this process's event loop.
  const stopWatch = watchEventLoop(log);
  void (app.untilReady ?? Promise.resolve()).then(() => announceReady());
  // The application's preparation and the WebRTC stack (about 25 ms, half of it holding up the event loop) run
  // once the service can see the application ready, not before: the first offer comes a page change later, and
  // awaits the stack anyway (Viewer.answer). Either failing still fails the start. An application without a
  // preparation, whose readiness waits for something else (the display host's program), loads the stack at once.
  if (app.prepare) {
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([
      firstProbe,
      new Promise((resolve) => (waited = setTimeout(resolve, options.probeWaitMs ?? PROBE_WAIT_MS))),
    ]);
    clearTimeout(waited);
    // The probe's answer is written once its handler's promises settle.
    await new Promise((resolve) => setImmediate(resolve));
  }
  try {
    app.prepare?.();
    await Promise.all([loadWebRtc(), options.sound ? loadOpus() : undefined]);
  } catch (error) {
    stopWatch();
    server.closeAllConnections();
    server.close();
    throw error;
  }
  const address = server.address();
  return {
    signalingPort: typeof address === 'object' && address ? address.port : options.signalingPort,
    fanout,
    health,
    viewers: () => viewers.size,
    broadcast(message, to = 'all') {
      if (to === 'control') return people.controller()?.sendMessage(message);
      for (const viewer of viewers.values())
        if (to === 'all' || !viewer.watchOnly) viewer.sendMessage(message);
    },
    async close() {
      stopWatch();
      people.close();
      for (const viewer of [...viewers.values()]) viewer.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
