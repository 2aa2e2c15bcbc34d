/**
 * The display host: streams any X11 program. Per session a private X display (display.ts), the program
 * in it (program.ts), the display captured when it changes and encoded by ffmpeg (media/video-pipeline.ts), and the
 * shared stream server (tickets, viewers, data channels) of the sample application. Viewer input becomes real X input
 * (display-input.ts); `resize` changes the captured size and fits the program's windows to it; text travels
 * on the clipboard both ways. What the program plays goes to a sound server of its own (sound-server.ts), whose
 * sink's monitor is sent as the stream's Opus track, unless the profile turns sound off.
 *
 * Each part makes what it owns in one scope (runtime/scope.ts) as it is made, and the parts talk in typed events: a start
 * that fails at any step, and `close`, undo all of it, newest first.
 */
import type { AppMessage } from '../../protocol/data-channels.ts';
import { OPEN_FILE_EVENT } from '../../protocol/files.ts';
import type { StreamerOptions } from '../runtime/stream-options.ts';
import { Scope } from '../runtime/scope.ts';
import { StreamServer } from '../transport/stream-server.ts';
import type { StreamingApp } from '../runtime/streaming-app.ts';
import { startChosenEncoder, VideoPipeline, type StartEncoder } from '../media/video-pipeline.ts';
import type { Viewer } from '../transport/viewer.ts';
import { openSessionFiles } from '../files/session.ts';
import { DamageCapture } from './capture.ts';
import { CLIPBOARD_MAX_BYTES } from './clipboard.ts';
import { inputHandler } from './display-input.ts';
import { InputBoost } from './input-boost.ts';
import { Display, type DisplayMakers } from './display.ts';
import { openSandbox, RunningProgram, type Program, type ProgramMakers } from './program.ts';
import { prepareProgramSandbox } from './program-sandbox.ts';
import type { SandboxSettings } from '../../protocol/launch.ts';
import { XClient } from './x-client.ts';
import { startXServer } from './x-server.ts';

export type { Program } from './program.ts';
export { captureFailure } from './display.ts';

export interface DisplayHost extends StreamingApp {
  stream: StreamServer;
}

/** What a display host is made of; tests replace some to see that a start that fails leaves nothing. */
export interface DisplayParts extends DisplayMakers, ProgramMakers {
  /** Makes the stream server in the scope; it listens once the host has wired its events. */
  openStreamServer: (...args: ConstructorParameters<typeof StreamServer>) => StreamServer;
  startEncoder: StartEncoder;
}

export const DISPLAY_PARTS: DisplayParts = {
  startXServer,
  prepareSandbox: prepareProgramSandbox,
  connect: (display, authFile) => XClient.connect(display, authFile),
  openStreamServer: (...args) => new StreamServer(...args),
  startEncoder: startChosenEncoder,
  startCapture: (display, authFile, options) => DamageCapture.start(display, authFile, options),
  openFiles: openSessionFiles,
};

/** What a viewer in control may send the program: a file to open, or text for its clipboard. */
function answer(message: AppMessage, viewer: Viewer, display: Display, program: RunningProgram): void {
  if (message.event_type === OPEN_FILE_EVENT) {
    void program.open(message.payload.name).then((reply) => viewer.sendMessage(reply));
    return;
  }
  if (message.event_type === 'clipboard') {
    const text = message.payload.text;
    if (typeof text !== 'string' || text.length > CLIPBOARD_MAX_BYTES) {
      const wrong = 'A clipboard needs its text, at most 64 KiB.';
      return viewer.sendMessage({ event_type: 'error', payload: { message: wrong } });
    }
    return display.client.clipboard.set(text);
  }
  const unknown = `Unknown event type: ${message.event_type.slice(0, 100)}`;
  viewer.sendMessage({ event_type: 'error', payload: { message: unknown } });
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
    const sandbox = await openSandbox(scope, parts, options, sandboxing);
    const display = await Display.open(scope, parts, options, program.opengl ?? true, sandbox, log);
    void display.firstWindow.then(() => log(`${program.command[0]} mapped its first window`));
    const running = await RunningProgram.start(scope, parts, options, program, sandbox, display, log);
    // Nobody watching for encoderRestS: the encoder rests, and the next viewer wakes it (video-pipeline.ts).
    const rest = options.encoderRestS > 0 ? options.encoderRestS * 1000 : null;
    const video = new VideoPipeline(scope, options, log, 'bgr0', rest);
    const stream = parts.openStreamServer(
      scope,
      {
        ...options,
        zeroPlayoutDelay: true,
        log,
        fanout: video.fanout,
        sound: running.sound?.stream ?? null,
        files: running.files.folder,
      },
      {
        queries: new Set(),
        size: () => video.size,
        // Ready once the program has mapped its first window and the capture and the encoder run, whichever is
        // last: a ready session has every one of its processes (the service may stop it at once).
        untilReady: Promise.all([display.firstWindow, display.capturing]).then(() => undefined),
      },
    );
    const boost = scope.use(new InputBoost((factor) => sandbox.weigh(factor)), (made) => made.close());
    wire(stream, display, running, video, boost, log);
    await stream.listen();
    running.files.tellChangesTo(stream);
    // Ready does not wait for the first frame, so a start that can never stream must end the session.
    const neverStreams = new Promise<string>((resolve) => video.once('failed', resolve));
    await video.start(parts.startEncoder);
    await display.capture(parts.startCapture, video);
    // A ready session that streams nothing would keep its viewers waiting for ever: it fails instead.
    const stalled = new Promise<string>((resolve) => video.once('stalled', resolve));
    video.watchPicture();

    const done = Promise.race([
      // A program whose display went away ends too, a moment before the X server's end is seen: the X server's
      // reason (the display out of its memory, say) says more than the program's lost connection.
      running.ended.then((ended) => (ended.code === 0 ? ended : display.theDisplaysIfSoon(ended))),
      display.ended,
      neverStreams.then((reason) => ({ code: 1, reason })),
      stalled.then((reason) => ({ code: 1, reason: `The display host stopped streaming: ${reason}.` })),
    ]);
    return { signalingPort: stream.signalingPort, stream, done, close: () => scope.dispose() };
  });
}

/** How the parts talk: the viewers' input and messages reach the display and the program, and what they show the viewers. */
function wire(
  stream: StreamServer,
  display: Display,
  program: RunningProgram,
  video: VideoPipeline,
  boost: InputBoost,
  log: (line: string) => void,
): void {
  const { client } = display;
  const pointerAt = (px: number, py: number) => display.pointerAt(px, py);
  const applyInput = inputHandler(
    client,
    () => pointerAt,
    // Nothing to resize before the program is up: a viewer who has not waited for /health to say ready, as
    // players do, is ignored rather than stopping the host.
    (width, height) => stream.isReady && video.resize(width, height),
  );
  stream.on('input', (event) => {
    boost.input();
    applyInput(event);
  });
  stream.on('message', (message, viewer) => answer(message, viewer, display, program));
  stream.on('viewers', (count, controlling) => {
    // Keys held by a viewer who left would stay down for the next one.
    if (count === 0) client.releaseAll();
    display.cursorInFrames(controlling === 0);
    video.watched(count);
  });
  stream.on('control', (controller) => {
    // Keys and buttons held by one who no longer controls would stay down for the one who does.
    client.releaseAll();
    // The clipboard follows control: the new controller has the program's, as the last had it.
    const text = client.clipboard.text;
    if (controller && text !== '') controller.sendMessage({ event_type: 'clipboard', payload: { text } });
  });
  stream.on('messagesOpen', (viewer) => display.cursor && viewer.sendMessage(display.cursor));
  display.on('cursor', (message) => stream.broadcast(message));
  client.clipboard.on('text', (text) =>
    stream.broadcast({ event_type: 'clipboard', payload: { text } }, 'control'),
  );
  video.on('resized', (size) => log(`resized the stream to ${size.width}x${size.height}`));
}
