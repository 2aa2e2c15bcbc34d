/**
 * The display part of the display host, made in the host's scope: the private X server (x-server.ts), this
 * process's connection to it (x-client.ts) with its clipboard, and the capture of its picture into the video
 * pipeline (capture.ts) with the byte budget the capture spends. It tells the pointer's image as a typed event and
 * ends, with the X server's reason where it has one, when the display or its capture goes.
 */
import { EventEmitter } from 'node:events';
import type { AppMessage } from '../../protocol/data-channels.ts';
import type { StreamerOptions } from '../runtime/stream-options.ts';
import { bandwidthOf } from '../media/ffmpeg-args.ts';
import type { Scope } from '../runtime/scope.ts';
import type { AppEnd } from '../runtime/streaming-app.ts';
import type { VideoPipeline } from '../media/video-pipeline.ts';
import { ByteBudget } from './byte-budget.ts';
import { DamageCapture } from './capture.ts';
import { cursorMessage } from './cursor-png.ts';
import type { XClient } from './x-client.ts';
import type { startXServer, XServer } from './x-server.ts';

/** What a display is made with; tests replace some to see that a start that fails leaves nothing. */
export interface DisplayMakers {
  startXServer: typeof startXServer;
  connect: (display: string, authFile: string) => Promise<XClient>;
  startCapture: typeof DamageCapture.start;
}

export interface DisplayEvents {
  /** The pointer's image changed: the `cursorImage` message every viewer is sent. */
  cursor: [message: AppMessage];
}

/** The sentence a session fails with when the capture stops. */
export function captureFailure(reason: string): string {
  return `The picture could not be read from the display: ${reason}`;
}

export class Display extends EventEmitter<DisplayEvents> {
  /** Resolves once the program has mapped its first window. */
  readonly firstWindow: Promise<void>;
  /** Resolves once the capture runs (`capture`). */
  readonly capturing: Promise<void>;
  /** Resolves with how the host should end once the X server exits or the capture fails; never otherwise. */
  readonly ended: Promise<AppEnd>;
  /** The pointer's image as viewers are sent it, null before the capture has seen one. */
  cursor: AppMessage | null = null;
  private capturer: DamageCapture | null = null;
  private inFrames = true;
  private captureRuns: () => void = () => undefined;
  private captureFails: (reason: string) => void = () => undefined;

  /** Starts the X server in `sandbox` (its user and control group) and connects to it, fitted to the stream's size. */
  static async open(
    scope: Scope,
    makers: Pick<DisplayMakers, 'startXServer' | 'connect'>,
    options: StreamerOptions,
    opengl: boolean,
    sandbox: Parameters<typeof startXServer>[4],
    log: (line: string) => void,
  ): Promise<Display> {
    const x = await scope.adopt(
      makers.startXServer(options.maxWidth, options.maxHeight, log, opengl, sandbox),
      (made) => made.stop(),
    );
    const client = scope.use(await makers.connect(x.display, x.authFile), (made) => made.close());
    return new Display(scope, x, client, options);
  }

  private constructor(
    private readonly scope: Scope,
    private readonly x: XServer,
    /** The connection input, the clipboard and the windows' fitting go through. */
    readonly client: XClient,
    private readonly options: StreamerOptions,
  ) {
    super();
    client.fit(options.width, options.height);
    this.firstWindow = new Promise<void>((resolve) => client.once('window', () => resolve()));
    this.capturing = new Promise<void>((resolve) => (this.captureRuns = resolve));
    // A display that went away ends the capture's connection first: the X server's own reason, which comes a
    // moment later, says more.
    const captureFailed = new Promise<string>((resolve) => (this.captureFails = resolve)).then((reason) =>
      this.theDisplaysIfSoon({ code: 1, reason: captureFailure(reason) }),
    );
    this.ended = Promise.race([x.exited.then((reason) => ({ code: 1, reason })), captureFailed]);
  }

  /** Where programs find the display (program-life.ts). */
  get address(): { name: string; socket: string; authFile: string } {
    return { name: this.x.display, socket: this.x.socket, authFile: this.x.authFile };
  }

  /** The X server's reason for ending, if it comes within half a second; else `end`, the program's own. */
  theDisplaysIfSoon(end: AppEnd): Promise<AppEnd> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(end), 500);
      void this.x.exited.then((reason) => {
        clearTimeout(timer);
        resolve({ code: 1, reason });
      });
    });
  }

  /** Captures the display into `video`'s encoder, which must have started; the budget follows the stream's size. */
  async capture(startCapture: DisplayMakers['startCapture'], video: VideoPipeline): Promise<void> {
    const budget = new ByteBudget(bandwidthOf(video.size));
    video.on('packet', (packet) => budget.spend(packet.length));
    const encoder = video.encoder;
    const capture = this.scope.use(
      await startCapture(this.x.display, this.x.authFile, {
        ...video.size,
        maxWidth: this.options.maxWidth,
        maxHeight: this.options.maxHeight,
        framebuffer: this.x.framebuffer,
        budget,
        acquire: () => video.acquire(),
        resting: () => encoder.isResting,
        send: (frame) => video.send(frame),
      }),
      (made) => made.close(),
    );
    capture.once('failed', this.captureFails);
    capture.on('cursor', (image) => this.emit('cursor', (this.cursor = cursorMessage(image))));
    video.on('woke', () => capture.refresh());
    video.on('stillDue', () => capture.refresh());
    video.on('resized', (size) => {
      this.client.fit(size.width, size.height);
      budget.rate = bandwidthOf(size);
      capture.resize(size.width, size.height, size.fps);
    });
    capture.cursorInFrames(this.inFrames);
    this.capturer = capture;
    this.captureRuns();
  }

  /** Moves the pointer, and once the capture runs, the cursor in the next frame with it. */
  pointerAt(px: number, py: number): void {
    const at = this.client.pointer(px, py);
    this.capturer?.pointerAt(at.x, at.y);
  }

  /** Controlling viewers show the pointer's image as their own cursor; the frames show it while none is there. */
  cursorInFrames(on: boolean): void {
    this.inFrames = on;
    this.capturer?.cursorInFrames(on);
  }
}
