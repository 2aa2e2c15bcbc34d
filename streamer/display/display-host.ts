/**
 * The display host: streams any X11 program. Per session a private X display (x-server.ts), the program
 * in it, the display captured when it changes (capture.ts) and encoded by ffmpeg, and the shared stream
 * server (tickets, viewers, data channels) of the sample application. Viewer input becomes real X input
 * (display-input.ts); `resize` changes the captured size and fits the program's windows to it; text travels
 * on the clipboard both ways. What the program plays goes to a sound server of its own (sound-server.ts), whose
 * sink's monitor is sent as the stream's Opus track, unless the profile turns sound off.
 *
 * Everything a start makes goes into one scope (scope.ts) as it is made: a start that fails at any step,
 * and `close`, undo all of it, newest first.
 */
import type { AppMessage } from '../../protocol/data-channels.ts';
import { OPEN_FILE_EVENT } from '../../protocol/files.ts';
import { resizedTo, type StreamerOptions } from '../transport/args.ts';
import { Encoder, type EncoderOptions } from '../transport/encoder.ts';
import { bandwidthOf, chooseEncoder, type EncoderSize } from '../transport/ffmpeg-args.ts';
import { ResizeThrottle } from '../transport/resize-throttle.ts';
import { encoderNeverStarted, startStreamServer, type StreamServer } from '../transport/stream-server.ts';
import type { Viewer } from '../transport/viewer.ts';
import { ByteBudget } from './byte-budget.ts';
import { DamageCapture } from './capture.ts';
import { CLIPBOARD_MAX_BYTES } from './clipboard.ts';
import { cursorMessage } from './cursor-png.ts';
import { inputHandler } from './display-input.ts';
import { openFile } from './file-opening.ts';
import { PictureWatch } from './picture-watch.ts';
import { ProgramLife, sandboxLauncher } from './program-life.ts';
import { prepareProgramSandbox } from './program-sandbox.ts';
import type { FileOpening, SandboxSettings } from '../../protocol/launch.ts';
import { Scope } from './scope.ts';
import { SoundServer } from './sound-server.ts';
import { XClient } from './x-client.ts';
import { openSessionFiles } from '../files/session.ts';
import { startXServer } from './x-server.ts';

/** The program a session streams, as the catalog's `launch.display` names it. */
export interface Program {
  command: string[];
  env: Record<string, string>;
  /** The display offers OpenGL (catalog `launch.display.opengl`, default true). */
  opengl?: boolean;
  /** The files it opens (catalog `launch.display.opens`), which `openFile` restarts it with. */
  opening?: FileOpening | null;
}

export interface DisplayHost {
  signalingPort: number;
  stream: StreamServer;
  /** Resolves with the exit code the host should end with, once the program or the display is gone. */
  done: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

/** What a display host is made of; tests replace some to see that a start that fails leaves nothing. */
export interface DisplayParts {
  startXServer: typeof startXServer;
  prepareSandbox: typeof prepareProgramSandbox;
  connect: (display: string, authFile: string) => Promise<XClient>;
  startStreamServer: typeof startStreamServer;
  /** Chooses the encoder and starts it at `size`; `log` says which was chosen. */
  startEncoder: (
    options: StreamerOptions,
    encoder: Omit<EncoderOptions, 'encoder'>,
    size: EncoderSize,
    log: (line: string) => void,
  ) => Promise<Encoder>;
  startCapture: typeof DamageCapture.start;
  /** The session's folder (streamer/files/session.ts). */
  openFiles: typeof openSessionFiles;
}

export const DISPLAY_PARTS: DisplayParts = {
  startXServer,
  prepareSandbox: prepareProgramSandbox,
  connect: (display, authFile) => XClient.connect(display, authFile),
  startStreamServer,
  async startEncoder(options, encoderOptions, size, log) {
    const choice = await chooseEncoder(options.codec);
    log(`encoding ${choice.reason}`);
    const encoder = new Encoder({ ...encoderOptions, encoder: choice.encoder });
    await encoder.start(size);
    return encoder;
  },
  startCapture: (display, authFile, options) => DamageCapture.start(display, authFile, options),
  openFiles: openSessionFiles,
};

/** The sentence a session fails with when the capture stops. */
export function captureFailure(reason: string): string {
  return `The picture could not be read from the display: ${reason}`;
}

/** The X server's reason for ending, if it comes within half a second; else the program's own. */
function theDisplaysIfSoon(
  exited: Promise<string>,
  program: { code: number; reason: string },
): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(program), 500);
    void exited.then((reason) => {
      clearTimeout(timer);
      resolve({ code: 1, reason });
    });
  });
}

export async function startDisplayHost(
  options: StreamerOptions,
  program: Program,
  log: (line: string) => void,
  sandboxing: SandboxSettings,
  parts: DisplayParts = DISPLAY_PARTS,
): Promise<DisplayHost> {
  const scope = new Scope();
  return scope.run(async () => {
    // The sandbox first: the X server runs in it too, as the program's user and in its control group, so that
    // what the program makes it keep (pixmaps, its CPU) counts against the program's limits. A machine that
    // cannot make one runs neither.
    const sandbox = await scope.adopt(
      parts.prepareSandbox(options.sessionId, options.signalingPort, sandboxing),
      (made) => made.close(),
    );
    const x = await scope.adopt(
      parts.startXServer(options.maxWidth, options.maxHeight, log, program.opengl ?? true, sandbox),
      (made) => made.stop(),
    );
    const client = scope.use(await parts.connect(x.display, x.authFile), (made) => made.close());
    let size = { width: options.width, height: options.height, fps: options.fps };
    client.fit(size.width, size.height);
    const firstWindow = new Promise<void>((resolve) =>
      client.once('window', () => {
        log(`${program.command[0]} mapped its first window`);
        resolve();
      }),
    );
    // Ready once the program has mapped its first window and the capture and the encoder run, whichever is
    // last: a ready session has every one of its processes (the service may stop it at once).
    let captureRuns: () => void = () => undefined;
    const capturing = new Promise<void>((resolve) => (captureRuns = resolve));
    let ready = false;
    const untilReady = Promise.all([firstWindow, capturing]).then(() => void (ready = true));

    // Started first, so that its start-up overlaps the stream server's and the encoder's. The program sees its
    // display and its own settings in its sandbox, nothing of this process's environment.
    const sound = options.audio
      ? scope.use(SoundServer.prepare(sandbox.uid, log), (made) => made?.close())
      : null;
    const display = { name: x.display, socket: x.socket, authFile: x.authFile };
    // The session's folder, the program's ~/Files, made before the program and released after it.
    const files = await scope.adopt(parts.openFiles(options.filesMb, sandbox.uid, log), (made) =>
      made.close(),
    );
    const life = scope.use(
      new ProgramLife(
        sandboxLauncher(sandbox, display, sound, program.env, log, files.folder.dir),
        program.command,
        (listener) => {
          client.on('window', listener);
          return () => void client.off('window', listener);
        },
      ),
      (made) => made.stop(),
    );
    if (sound) scope.defer(sound.capture());
    const opener = {
      opening: program.opening ?? null,
      folder: files.folder.dir,
      program: program.command,
      life,
    };

    /** Replaced once the capture runs: the cursor then follows the viewer's pointer in the next frame. */
    let pointerAt = (px: number, py: number): void => void client.pointer(px, py);
    let resize = (_width: number, _height: number): void => undefined;
    // Controlling viewers show the pointer's image as their own cursor; the frames show it while none is there.
    let cursor: AppMessage | null = null;
    let controllers = 0;
    let cursorInFrames = (_on: boolean): void => undefined;
    const applyInput = inputHandler(
      client,
      () => pointerAt,
      (width, height) => resize(width, height),
    );
    const answer = (message: AppMessage, viewer: Viewer): AppMessage[] => {
      if (message.event_type === OPEN_FILE_EVENT) {
        void openFile(message.payload.name, opener).then((reply) => viewer.sendMessage(reply));
        return [];
      }
      if (message.event_type === 'clipboard') {
        const text = message.payload.text;
        if (typeof text !== 'string' || text.length > CLIPBOARD_MAX_BYTES) {
          return [
            { event_type: 'error', payload: { message: 'A clipboard needs its text, at most 64 KiB.' } },
          ];
        }
        client.clipboard.set(text);
        return [];
      }
      const unknown = `Unknown event type: ${message.event_type.slice(0, 100)}`;
      return [{ event_type: 'error', payload: { message: unknown } }];
    };

    const stream = scope.use(
      await parts.startStreamServer(
        { ...options, zeroPlayoutDelay: true, log, sound: sound?.stream ?? null, files: files.folder },
        {
          queries: new Set(),
          onInput: (event) => applyInput(event),
          onMessage: (message, viewer) => answer(message, viewer),
          readiness: () => (ready ? size : null),
          untilReady,
          onViewers: (count, controlling) => {
            // Keys held by a viewer who left would stay down for the next one.
            if (count === 0) client.releaseAll();
            controllers = controlling;
            cursorInFrames(controlling === 0);
          },
          onControl: (controller) => {
            // Keys and buttons held by one who no longer controls would stay down for the one who does.
            client.releaseAll();
            // The clipboard follows control: the new controller has the program's, as the last had it.
            const text = client.clipboard.text;
            if (controller && text !== '')
              controller.sendMessage({ event_type: 'clipboard', payload: { text } });
          },
          onMessagesOpen: (viewer) => cursor && viewer.sendMessage(cursor),
        },
      ),
      (made) => made.close(),
    );
    files.tellChangesTo(stream);
    client.clipboard.on('text', (text) =>
      stream.broadcast({ event_type: 'clipboard', payload: { text } }, 'control'),
    );

    const budget = new ByteBudget(bandwidthOf(size));
    // Ready does not wait for the first frame, so a start that can never stream must end the session.
    let encoderFailed: (reason: string) => void = () => undefined;
    const neverStreams = new Promise<string>((resolve) => (encoderFailed = resolve));
    const encoderOptions: Omit<EncoderOptions, 'encoder'> = {
      pixelFormat: 'bgr0',
      stillPath: options.stillPath,
      onPacket: (packet) => {
        budget.spend(packet.length);
        stream.fanout.push(packet);
      },
      onUnexpectedExit: (reason) => {
        const fatal = encoderNeverStarted(stream.fanout, reason);
        if (fatal) return encoderFailed(fatal);
        log(`${reason}; restarting it`);
        stream.fanout.restart();
      },
    };
    const encoder = scope.use(await parts.startEncoder(options, encoderOptions, size, log), (made) =>
      made.stop(),
    );
    const capture = scope.use(
      await parts.startCapture(x.display, x.authFile, {
        ...size,
        maxWidth: options.maxWidth,
        maxHeight: options.maxHeight,
        framebuffer: x.framebuffer,
        budget,
        acquire: () => encoder.acquire(),
        send: (frame) => encoder.write(frame),
      }),
      (made) => made.close(),
    );
    // A display that went away ends the capture's connection first: the X server's own reason, which comes a
    // moment later, says more.
    const captureFailed = new Promise<string>((resolve) => capture.once('failed', resolve)).then((reason) =>
      theDisplaysIfSoon(x.exited, { code: 1, reason: captureFailure(reason) }),
    );
    capture.on('cursor', (image) => stream.broadcast((cursor = cursorMessage(image))));
    cursorInFrames = (on) => capture.cursorInFrames(on);
    cursorInFrames(controllers === 0);
    pointerAt = (px, py) => {
      const at = client.pointer(px, py);
      capture.pointerAt(at.x, at.y);
    };
    captureRuns();
    // A ready session that streams nothing would keep its viewers waiting for ever: it fails instead.
    let watch: PictureWatch | undefined;
    const stalled = new Promise<string>((resolve) => {
      watch = scope.use(new PictureWatch(() => stream.fanout.packets, resolve), (made) => made.close());
    });

    // Each resize restarts the encoder: at most one a second, the last size asked for winning (resize-throttle.ts).
    const resizes = new ResizeThrottle((width, height) => {
      const next = resizedTo(width, height, options, size);
      if (!next) return false;
      size = { ...size, ...next };
      log(`resized the stream to ${size.width}x${size.height}`);
      client.fit(next.width, next.height);
      stream.fanout.restart();
      encoder.resize(size);
      watch?.reset();
      budget.rate = bandwidthOf(size);
      capture.resize(size.width, size.height, size.fps);
      return true;
    });
    scope.defer(() => resizes.close());
    // Nothing to resize before the program is up: a viewer who has not waited for /health to say ready, as
    // players do, is ignored rather than stopping the host.
    resize = (width, height) => {
      if (ready) resizes.resize(width, height);
    };

    const done = Promise.race([
      // A program whose display went away ends too, a moment before the X server's end is seen: the X server's
      // reason (the display out of its memory, say) says more than the program's lost connection.
      life.ended.then((ended) => (ended.code === 0 ? ended : theDisplaysIfSoon(x.exited, ended))),
      x.exited.then((reason) => ({ code: 1, reason })),
      neverStreams.then((reason) => ({ code: 1, reason })),
      captureFailed,
      stalled.then((reason) => ({ code: 1, reason: `The display host stopped streaming: ${reason}.` })),
    ]);
    return {
      signalingPort: stream.signalingPort,
      stream,
      done,
      close: () => scope.dispose(),
    };
  });
}
