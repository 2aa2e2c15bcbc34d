/**
 * One viewer: a node-datachannel peer connection that answers the viewer's offer, sends it the shared
 * video stream (VP8 or H.264), the shared sound (Opus) where the application has some and the offer asks for
 * it, and carries its two data channels. Every viewer shares the one media port through
 * libjuice's UDP mux.
 */
import { EventEmitter } from 'node:events';
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { DataChannel, PeerConnection, Track } from 'node-datachannel';
import {
  INPUT_CHANNEL,
  KEEP_ALIVE_EVENT,
  MESSAGES_CHANNEL,
  type AppMessage,
  type InputEvent,
} from '../../protocol/data-channels.ts';
import { PEOPLE_REQUESTS } from '../../protocol/people.ts';
import type { RtpSink } from '../media/rtp.ts';
import { OfferError, withoutAudio, withPlayoutDelay, withSingleCandidate, type OfferInfo } from './sdp.ts';
import { ViewerLiveness } from './viewer-liveness.ts';
import { ViewerTraffic, type Drop } from './viewer-traffic.ts';

/**
 * node-datachannel, loaded when first needed rather than with this module: an application starts its
 * encoder and draws its first frame first, and loads it meanwhile (`startStreamServer` does, once it listens).
 */
let webrtc: typeof import('node-datachannel') | undefined;

/** Loads the WebRTC stack (about 25 ms); every later call resolves at once. */
export async function loadWebRtc(): Promise<void> {
  webrtc ??= await import('node-datachannel');
}

function loadedWebRtc(): typeof import('node-datachannel') {
  if (!webrtc) throw new Error('The WebRTC stack is not loaded yet (loadWebRtc).');
  return webrtc;
}

/** What happens on a viewer's connection, as the stream server hears it. */
export interface ViewerEvents {
  /** The video track opened: start sending it packets. */
  videoOpen: [];
  /** The audio track opened: start sending it packets (`viewer.audio`). */
  audioOpen: [];
  /** An input event, of a viewer in control. */
  input: [event: InputEvent];
  /** A `messages` event, of a viewer in control or a query of anyone's: the answers go back by `sendMessage`. */
  message: [message: AppMessage];
  /** One of PEOPLE_REQUESTS (protocol/people.ts), from any viewer: the stream server's, never the application's. */
  people: [message: AppMessage];
  /** The viewer's `messages` channel opened: the application may greet it there. */
  messagesOpen: [];
  /** A message of the viewer was dropped: malformed, or over its rate (viewer-traffic.ts). */
  dropped: [why: Drop];
  /** The viewer is gone (DELETE, failure, silence); once. */
  closed: [];
}

/** What a viewer asks the stream server at each event, since the answer changes while it is connected. */
export interface ViewerRules {
  /** `messages` events that change nothing (queries): the only ones a viewer not in control may send. */
  queries: ReadonlySet<string>;
  /**
   * Whether the viewer is in control now (people-hub.ts): only its input and its messages other than queries
   * reach the application.
   */
  controls(viewer: Viewer): boolean;
}

/** What a viewer not in control is told when it sends a message that would change the application. */
export const NOT_IN_CONTROL_MESSAGE =
  'This viewer is not in control: it may watch and ask for control, but not change the application.';

export interface ViewerOptions {
  host: string;
  mediaPort: number;
  /** Connected with a watch ticket (or asked only to watch): a watcher among the session's people. */
  watchOnly: boolean;
  /** The ticket that made this viewer; only it may delete the viewer. Null without tickets. */
  ticket: string | null;
  /** No packet from the viewer for this long ends it; less for one that sends keep-alives (viewer-liveness.ts). */
  silenceTimeoutMs: number;
  /** Negotiate a playout delay of zero where the viewer offers the extension. */
  zeroPlayoutDelay: boolean;
  /** The application has sound: answer an offer's Opus section with it (else it is rejected). */
  audio: boolean;
}

const GATHER_TIMEOUT_MS = 3000;

/** A connected (or connecting) viewer. */
export class Viewer extends EventEmitter<ViewerEvents> implements RtpSink {
  readonly id = randomUUID();
  readonly ssrc = randomBytes(4).readUInt32BE(0) || 1;
  payloadType = 96;
  playoutDelayExtId: number | null = null;
  readonly watchOnly: boolean;
  private readonly pc: PeerConnection;
  private track: Track | null = null;
  /** Where the sound goes, once its track is negotiated; null without sound. */
  audio: RtpSink | null = null;
  // Held so that the native track is not collected (and closed) with its last JS reference.
  private audioTrack: Track | null = null;
  private messages: DataChannel | null = null;
  // Held so that the native channel is not collected (and closed) with its last JS reference.
  private input: DataChannel | null = null;
  private closed = false;
  private watchdog: NodeJS.Timeout;
  /** Packets heard from the viewer (RTCP on its tracks, data-channel messages): proof that it is still there. */
  private readonly liveness: ViewerLiveness;
  /** What the data channels may carry, and how fast. */
  private readonly traffic = new ViewerTraffic((why) => this.emit('dropped', why));

  private constructor(
    private readonly options: ViewerOptions,
    private readonly rules: ViewerRules,
  ) {
    super();
    this.watchOnly = options.watchOnly;
    this.pc = new (loadedWebRtc().PeerConnection)(this.id, {
      iceServers: [],
      enableIceUdpMux: true,
      portRangeBegin: options.mediaPort,
      portRangeEnd: options.mediaPort,
      bindAddress: options.host,
      // Without it a second peer on the muxed port never gets its description.
      disableAutoNegotiation: true,
    });
    // A viewer that vanishes without DELETE sends nothing more: consent checks, RTCP and keep-alives stop.
    this.liveness = new ViewerLiveness(options.silenceTimeoutMs);
    this.watchdog = setInterval(() => {
      if (this.liveness.check()) this.close();
    }, this.liveness.checkEveryMs);
    this.watchdog.unref();
  }

  /** A viewer yet to answer its offer (`answer`): its events may be listened to before any can come. */
  static async open(options: ViewerOptions, rules: ViewerRules): Promise<Viewer> {
    await loadWebRtc();
    return new Viewer(options, rules);
  }

  /** Answers `offer`; resolves with the complete (non-trickle) SDP answer. A viewer whose offer fails is closed. */
  async answer(offer: string, info: OfferInfo): Promise<string> {
    try {
      return await this.negotiate(offer, info);
    } catch (err) {
      this.close();
      throw err;
    }
  }

  /** Sends one RTP packet on the video track; false when it is not open (yet). */
  send(packet: Buffer): boolean {
    return this.sendOn(this.track, packet);
  }

  private sendOn(track: Track | null, packet: Buffer): boolean {
    if (this.closed || !track || !track.isOpen()) return false;
    try {
      return track.sendMessageBinary(packet);
    } catch {
      return false;
    }
  }

  /** Sends one event on `messages`, when that channel is open. */
  sendMessage(message: AppMessage): void {
    if (this.closed || !this.messages?.isOpen()) return;
    try {
      this.messages.sendMessage(JSON.stringify(message));
    } catch {
      // the channel closed between the check and the send; the viewer is going away
    }
  }

  /** Ends the connection; idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.watchdog);
    this.emit('closed');
    try {
      this.pc.close();
    } catch {
      // already torn down by libdatachannel
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Whether `ticket` is the one this viewer was made with (any ticket when there were none). */
  madeWith(ticket: string | null): boolean {
    const own = this.options.ticket;
    if (own === null) return true;
    if (ticket === null) return false;
    // Digests of equal length, so that the comparison takes the same time whatever the input.
    const digest = (text: string) => createHash('sha256').update(text).digest();
    return timingSafeEqual(digest(own), digest(ticket));
  }

  private async negotiate(offer: string, info: OfferInfo): Promise<string> {
    const pc = this.pc;
    if (info.videoMid !== null && info.payloadType !== null) {
      this.payloadType = info.payloadType;
      this.playoutDelayExtId = this.options.zeroPlayoutDelay ? info.playoutDelayExtId : null;
      const video = new (loadedWebRtc().Video)(info.videoMid, 'SendOnly');
      if (info.fmtp !== null) video.addH264Codec(info.payloadType, info.fmtp);
      else video.addVP8Codec(info.payloadType);
      video.addSSRC(this.ssrc, 'streamgate', 'streamgate', 'video');
      const track = pc.addTrack(video);
      this.track = track;
      track.onOpen(() => {
        if (!this.closed) this.emit('videoOpen');
      });
      // Receiver reports and keyframe requests: nothing to do with them, but they prove the viewer is alive.
      track.onMessage(() => this.liveness.heard());
    }
    if (this.options.audio && info.audioMid !== null && info.audioPayloadType !== null)
      this.addAudio(info.audioMid, info.audioPayloadType);
    pc.onDataChannel((dc) => this.adopt(dc));
    pc.onStateChange((state) => {
      if (state === 'failed' || state === 'closed') this.close();
    });
    const gathered = new Promise<void>((resolve) => {
      pc.onGatheringStateChange((state) => {
        if (state === 'complete') resolve();
      });
    });
    try {
      pc.setRemoteDescription(offer, 'offer');
    } catch (err) {
      // The WebRTC stack checks more than parseOffer (a fingerprint's digits, say): its refusal is the
      // offer's fault, answered 400 with its reason, not a failure of the application.
      throw new OfferError(`The SDP offer was refused: ${(err as Error).message}`);
    }
    pc.setLocalDescription('answer');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      gathered,
      new Promise((resolve) => (timer = setTimeout(resolve, GATHER_TIMEOUT_MS))),
    ]);
    clearTimeout(timer);
    const local = pc.localDescription();
    if (!local) throw new Error('No local description was produced.');
    const candidate = withSingleCandidate(local.sdp, this.options.host, this.options.mediaPort);
    const answer = this.audio ? candidate : withoutAudio(candidate);
    const { videoMid } = info;
    const id = this.playoutDelayExtId;
    return videoMid !== null && id !== null ? withPlayoutDelay(answer, videoMid, id) : answer;
  }

  /** The sound's track, in the same stream ('streamgate') as the video so that players keep them together. */
  private addAudio(mid: string, payloadType: number): void {
    const ssrc = randomBytes(4).readUInt32BE(0) || 2;
    const audio = new (loadedWebRtc().Audio)(mid, 'SendOnly');
    audio.addOpusCodec(payloadType);
    audio.addSSRC(ssrc, 'streamgate', 'streamgate', 'audio');
    const track = this.pc.addTrack(audio);
    this.audioTrack = track;
    this.audio = {
      ssrc,
      payloadType,
      send: (packet) => this.sendOn(track, packet),
    };
    track.onOpen(() => {
      if (!this.closed) this.emit('audioOpen');
    });
    track.onMessage(() => this.liveness.heard());
  }

  private adopt(dc: DataChannel): void {
    const label = dc.getLabel();
    if (label === MESSAGES_CHANNEL) {
      this.messages = dc;
      const opened = () => void (!this.closed && this.emit('messagesOpen'));
      if (dc.isOpen()) opened();
      else dc.onOpen(opened);
      dc.onMessage((msg) => {
        this.liveness.heard();
        const message = this.traffic.appMessage(msg);
        if (!message) return;
        // The player's, for this viewer's liveness alone: the application never sees it, a watcher may send it.
        if (message.event_type === KEEP_ALIVE_EVENT) return this.liveness.keptAlive();
        if (PEOPLE_REQUESTS.has(message.event_type)) return void this.emit('people', message);
        if (!this.rules.queries.has(message.event_type) && !this.rules.controls(this)) {
          this.sendMessage({ event_type: 'error', payload: { message: NOT_IN_CONTROL_MESSAGE } });
          return;
        }
        this.emit('message', message);
      });
    } else if (label === INPUT_CHANNEL) {
      this.input = dc;
      dc.onMessage((msg) => {
        this.liveness.heard();
        if (!this.rules.controls(this)) return;
        const event = this.traffic.inputEvent(msg);
        if (event) this.emit('input', event);
      });
    }
  }
}
