/**
 * The video of one application, made in its scope: the encoder (ffmpeg), the fan-out of its RTP to the viewers,
 * the resizes a viewer asks for (at most one a second, resize-throttle.ts) and, where asked, the watch that a
 * ready stream keeps sending (picture-watch.ts). What draws the frames is the application's: the sample's scene
 * or the display host's capture. The encoder's packets, a resize and the ways the video ends are typed events.
 *
 * Where asked (`restAfterMs`, the display host), the encoder rests while nobody watches: some time after the last
 * viewer left, ffmpeg is stopped (about 95 MB of an idle terminal session's 175, and its CPU), and the next viewer
 * wakes it; what draws the frames is told to send the whole picture again (`woke`). Meanwhile the still (still.ts)
 * goes on: every few seconds what draws the frames is asked for the picture (`stillDue`) and `acquire` gives it a
 * buffer for the still alone.
 *
 * What draws the frames takes its buffers from `acquire` and hands them back filled to `send`.
 */
import { EventEmitter } from 'node:events';
import { resizedTo, type StreamerOptions, type StreamSize } from '../runtime/stream-options.ts';
import { Encoder, type EncoderOptions } from './encoder.ts';
import { chooseEncoder, type PixelFormat } from './ffmpeg-args.ts';
import { PictureWatch } from './picture-watch.ts';
import { ResizeThrottle } from './resize-throttle.ts';
import { STILL_INTERVAL_S, StillKeeper } from './still.ts';
import { VideoFanout } from './rtp.ts';
import type { Scope } from '../runtime/scope.ts';

export interface VideoEvents {
  /** Each RTP datagram of the encoder, once the viewers have it. */
  packet: [packet: Buffer];
  /** The stream is at a new size (the encoder has restarted at it): what draws the frames follows. */
  resized: [size: StreamSize];
  /** The video can never stream: its encoder failed before its first frame. */
  failed: [reason: string];
  /** A watched stream sent nothing for long (`watchPicture`). */
  stalled: [reason: string];
  /** The encoder woke from its rest: it needs a whole picture, now. */
  woke: [];
  /** The encoder rests and a still is due: the picture is wanted for it (`acquire` has a buffer). */
  stillDue: [];
}

/** Chooses the encoder and starts it at `size`; `log` says which was chosen. */
export type StartEncoder = (
  options: StreamerOptions,
  encoder: Omit<EncoderOptions, 'encoder'>,
  size: StreamSize,
  log: (line: string) => void,
) => Promise<Encoder>;

/** The real encoder: the codec's best ffmpeg encoder on this machine (ffmpeg-args.ts `chooseEncoder`). */
export const startChosenEncoder: StartEncoder = async (options, encoderOptions, size, log) => {
  const choice = await chooseEncoder(options.codec);
  log(`encoding ${choice.reason}`);
  const encoder = new Encoder({ ...encoderOptions, encoder: choice.encoder });
  await encoder.start(size);
  return encoder;
};

/** The reason an application gives up when its encoder died before it ever sent a frame, or null. */
function encoderNeverStarted(fanout: VideoFanout, reason: string): string | null {
  return fanout.packets === 0 ? `the video encoder failed before its first frame: ${reason}` : null;
}

export class VideoPipeline extends EventEmitter<VideoEvents> {
  /** Where the encoder's RTP goes: the stream server's viewers. */
  readonly fanout: VideoFanout;
  private current: StreamSize;
  private running: Encoder | null = null;
  private watch: PictureWatch | null = null;
  private readonly resizes: ResizeThrottle;
  private restTimer: NodeJS.Timeout | undefined;
  private readonly still: StillKeeper | null;
  private stillTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly scope: Scope,
    private readonly options: StreamerOptions,
    private readonly log: (line: string) => void,
    /** How the frames lay out their pixels; the encoder's default (RGBA) unless told. */
    private readonly pixelFormat?: PixelFormat,
    /** The encoder rests this long after the last viewer left (or after its start, while none came); never if null. */
    private readonly restAfterMs: number | null = null,
  ) {
    super();
    this.current = { width: options.width, height: options.height, fps: options.fps };
    this.fanout = new VideoFanout(options.fps, options.codec);
    this.still = options.stillPath ? new StillKeeper(options.stillPath, log) : null;
    // Each resize restarts the encoder: at most one a second, the last size asked for winning.
    this.resizes = scope.use(new ResizeThrottle((width, height) => this.apply(width, height)), (made) =>
      made.close(),
    );
  }

  /** The stream's size now. */
  get size(): StreamSize {
    return this.current;
  }

  /** The running encoder; `start` first. */
  get encoder(): Encoder {
    if (!this.running) throw new Error('The video encoder has not been started yet.');
    return this.running;
  }

  /** Starts the encoder at the stream's size, in the scope. */
  async start(startEncoder: StartEncoder = startChosenEncoder): Promise<Encoder> {
    const encoderOptions: Omit<EncoderOptions, 'encoder'> = {
      ...(this.pixelFormat ? { pixelFormat: this.pixelFormat } : {}),
      onPacket: (packet) => {
        this.fanout.push(packet);
        this.emit('packet', packet);
      },
      onUnexpectedExit: (reason) => {
        // Ready does not wait for the first frame, so a start that can never stream must end the session.
        const fatal = encoderNeverStarted(this.fanout, reason);
        if (fatal) return void this.emit('failed', fatal);
        this.log(`${reason}; restarting it`);
        this.fanout.restart();
      },
    };
    const encoder = await startEncoder(this.options, encoderOptions, this.current, this.log);
    this.running = this.scope.use(encoder, (made) => made.stop());
    this.scope.defer(() => {
      clearTimeout(this.restTimer);
      clearInterval(this.stillTimer);
    });
    // Nobody watches yet: a session launched and never opened rests too.
    this.watched(0);
    return encoder;
  }

  /** How many viewers there are now: the first wakes a resting encoder; with none, it rests after `restAfterMs`. */
  watched(viewers: number): void {
    if (this.restAfterMs === null || !this.running) return;
    const encoder = this.running;
    if (viewers > 0) {
      clearTimeout(this.restTimer);
      this.restTimer = undefined;
      if (!encoder.isResting) return;
      encoder.wake();
      clearInterval(this.stillTimer);
      this.stillTimer = undefined;
      this.fanout.restart();
      this.watch?.resume();
      this.log('a viewer came: the encoder woke');
      this.emit('woke');
      return;
    }
    if (this.restTimer || encoder.isResting) return;
    this.restTimer = setTimeout(() => {
      this.restTimer = undefined;
      this.watch?.pause();
      encoder.rest();
      if (this.still) {
        this.stillTimer = setInterval(() => this.emit('stillDue'), STILL_INTERVAL_S * 1000);
        this.stillTimer.unref();
      }
      this.log(
        `nobody watched for ${Math.round(this.restAfterMs! / 1000)} s: the encoder rests until a viewer comes`,
      );
    }, this.restAfterMs);
    this.restTimer.unref();
  }

  /**
   * A buffer for the next frame, or null to skip it: the encoder's (null while it is behind), or while it rests,
   * the still's when one is due.
   */
  acquire(): Buffer | null {
    const encoder = this.encoder;
    if (!encoder.isResting) return encoder.acquire();
    if (!this.still?.due) return null;
    return this.still.buffer(this.current.width * this.current.height * 4);
  }

  /**
   * A buffer from `acquire`, filled with a frame of the stream's size: to the encoder, and to the still when one is
   * due.
   */
  send(frame: Buffer): void {
    const { width, height } = this.current;
    // A frame of the size before a resize goes to the encoder as it always did, but makes no still.
    if (this.still && frame.length === width * height * 4) {
      void this.still.offer({ pixels: frame, width, height, layout: this.pixelFormat ?? 'rgba' });
    }
    if (!this.encoder.isResting) this.encoder.write(frame);
  }

  /**
   * From now on, a stream that sends nothing for long fails (unless its encoder rests): a ready session would keep
   * its viewers waiting.
   */
  watchPicture(): void {
    this.watch = this.scope.use(
      new PictureWatch(
        () => this.fanout.packets,
        (reason) => this.emit('stalled', reason),
      ),
      (made) => made.close(),
    );
    if (this.running?.isResting) this.watch.pause();
  }

  /** A viewer asked for this size: applied now or within the second (resize-throttle.ts). */
  resize(width: number, height: number): void {
    this.resizes.resize(width, height);
  }

  private apply(width: number, height: number): boolean {
    const next = resizedTo(width, height, this.options, this.current);
    if (!next) return false;
    this.current = { ...this.current, ...next };
    this.fanout.restart();
    this.encoder.resize(this.current);
    this.watch?.reset();
    this.emit('resized', this.current);
    return true;
  }
}
