/**
 * The display host: streams any X11 program. Per session a private X display (x-server.ts), the program
 * in it, the display captured when it changes (capture.ts) and encoded by ffmpeg, and the shared stream
 * server (tickets, viewers, data channels) of the sample application. Viewer input becomes real X input
 * (x-client.ts); `resize` changes the captured size and fits the program's windows to it; text travels on
 * the clipboard both ways.
 */
import type { ChildProcess } from 'node:child_process';
import { resizedTo, type StreamerOptions } from '../transport/args.ts';
import { bandwidthOf, chooseEncoder, Encoder } from '../transport/encoder.ts';
import type { AppMessage, InputEvent } from '../../protocol/data-channels.ts';
import { encoderNeverStarted, startStreamServer, type StreamServer } from '../transport/stream-server.ts';
import { prepareProgramSandbox, type SandboxSettings } from './program-sandbox.ts';
import { ResizeThrottle } from '../transport/resize-throttle.ts';
import { ByteBudget, DamageCapture } from './capture.ts';
import { keysymOf } from './keysyms.ts';
import { XClient } from './x-client.ts';
import { startXServer } from './x-server.ts';
import { wheelClicks } from './wheel-clicks.ts';

/** The program a session streams, as the catalog's `launch.display` names it. */
export interface Program {
  command: string[];
  env: Record<string, string>;
  /** The display offers OpenGL (catalog `launch.display.opengl`, default true). */
  opengl?: boolean;
}

export interface DisplayHost {
  signalingPort: number;
  stream: StreamServer;
  /** Resolves with the exit code the host should end with, once the program or the display is gone. */
  done: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

/** Browser buttons (0 left, 1 middle, 2 right, 3 back, 4 forward) as X buttons. */
const BUTTONS = [1, 2, 3, 8, 9];

/** The last lines of a program's error output, kept for the reason its session failed. */
class Tail {
  private text = '';
  add(chunk: Buffer): void {
    this.text = (this.text + chunk.toString()).slice(-4000);
  }
  lines(n: number): string {
    return this.text.trim().split('\n').slice(-n).join(' | ');
  }
}

export async function startDisplayHost(
  options: StreamerOptions,
  program: Program,
  log: (line: string) => void,
  sandboxing: SandboxSettings,
): Promise<DisplayHost> {
  // The sandbox is made while the X server starts; a machine that cannot make one runs no program.
  const sandboxReady = prepareProgramSandbox(options.sessionId, options.signalingPort, sandboxing);
  const [x, sandbox] = await Promise.all([
    startXServer(options.maxWidth, options.maxHeight, log, program.opengl ?? true),
    sandboxReady,
  ]).catch(async (error: unknown) => {
    await sandboxReady.then((made) => made.close()).catch(() => undefined);
    throw error;
  });
  let client: XClient;
  try {
    process.env.XAUTHORITY = x.authFile;
    client = await XClient.connect(x.display);
  } catch (error) {
    await x.stop();
    await sandbox.close();
    throw error;
  }
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
  const [file] = program.command as [string, ...string[]];
  const tail = new Tail();
  const child: ChildProcess = sandbox.spawn(program.command, program.env, {
    socket: x.socket,
    authFile: x.authFile,
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    tail.add(chunk);
    process.stderr.write(chunk);
  });
  log(`started ${program.command.join(' ')} (pid ${child.pid ?? '?'}) on ${x.display}`);

  const wheel = { x: 0, y: 0 };
  const scroll = (delta: number, axis: 'x' | 'y') => {
    // At most ten clicks an event, whatever its delta (wheel-clicks.ts).
    const { clicks, pending } = wheelClicks(wheel[axis], delta);
    wheel[axis] = pending;
    const [less, more] = axis === 'y' ? [4, 5] : [6, 7];
    const button = clicks < 0 ? less : more;
    for (let i = 0; i < Math.abs(clicks); i++) {
      client.button(button, true);
      client.button(button, false);
    }
  };
  /** Set once the capture runs: the cursor follows the viewer's pointer in the next frame. */
  let pointerAt = (x: number, y: number): void => void client.pointer(x, y);
  const applyInput = (event: InputEvent) => {
    switch (event.type) {
      case 'pointermove':
        return pointerAt(event.x, event.y);
      case 'pointerdown':
      case 'pointerup':
        pointerAt(event.x, event.y);
        return client.button(BUTTONS[event.button] ?? 1, event.type === 'pointerdown');
      case 'wheel':
        pointerAt(event.x, event.y);
        scroll(event.deltaY, 'y');
        return scroll(event.deltaX, 'x');
      case 'keydown':
      case 'keyup': {
        const keysym = keysymOf(event.key, event.code);
        if (keysym !== null) client.key(keysym, event.code, event.type === 'keydown');
        return;
      }
      case 'touchstart':
      case 'touchmove':
      case 'touchend': {
        // One finger is the pointer with the left button held.
        const first = event.touches[0];
        if (first) pointerAt(first.x, first.y);
        return client.button(1, event.type !== 'touchend');
      }
      case 'resize':
        return resize(event.width, event.height);
      default:
        return;
    }
  };

  const answer = (message: AppMessage): AppMessage[] => {
    if (message.event_type === 'clipboard') {
      const text = message.payload.text;
      if (typeof text !== 'string' || text.length > 64 * 1024) {
        return [{ event_type: 'error', payload: { message: 'A clipboard needs its text, at most 64 KiB.' } }];
      }
      client.setClipboard(text);
      return [];
    }
    return [
      {
        event_type: 'error',
        payload: { message: `Unknown event type: ${message.event_type.slice(0, 100)}` },
      },
    ];
  };

  let stream: StreamServer;
  try {
    stream = await startStreamServer(
      { ...options, zeroPlayoutDelay: true, log },
      {
        queries: new Set(),
        onInput: (event) => applyInput(event),
        onMessage: (message) => answer(message),
        readiness: () => (ready ? size : null),
        untilReady,
        onViewers: (count) => {
          // Keys held by a viewer who left would stay down for the next one.
          if (count === 0) client.releaseAll();
        },
      },
    );
  } catch (error) {
    child.kill('SIGKILL');
    client.close();
    await x.stop();
    await sandbox.close();
    throw error;
  }
  client.on('clipboard', (text) =>
    stream.broadcast({ event_type: 'clipboard', payload: { text } }, 'control'),
  );

  const budget = new ByteBudget(bandwidthOf(size));
  const choice = await chooseEncoder(options.codec);
  log(`encoding ${choice.reason}`);
  // Ready does not wait for the first frame, so a start that can never stream must end the session.
  let encoderFailed: (reason: string) => void = () => undefined;
  const neverStreams = new Promise<string>((resolve) => (encoderFailed = resolve));
  const encoder = new Encoder({
    encoder: choice.encoder,
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
  });
  await encoder.start(size);
  let capture: DamageCapture;
  try {
    capture = await DamageCapture.start(x.display, {
      ...size,
      maxWidth: options.maxWidth,
      maxHeight: options.maxHeight,
      framebuffer: x.framebuffer,
      budget,
      acquire: () => encoder.acquire(),
      send: (frame) => encoder.write(frame),
    });
  } catch (error) {
    encoder.stop();
    child.kill('SIGKILL');
    client.close();
    await stream.close();
    await x.stop();
    await sandbox.close();
    throw error;
  }
  pointerAt = (px, py) => {
    const at = client.pointer(px, py);
    capture.pointerAt(at.x, at.y);
  };
  captureRuns();

  // Each resize restarts the encoder: at most one a second, the last size asked for winning (resize-throttle.ts).
  const resizes = new ResizeThrottle((width, height) => {
    const next = resizedTo(width, height, options, size);
    if (!next) return false;
    size = { ...size, ...next };
    log(`resized the stream to ${size.width}x${size.height}`);
    client.fit(next.width, next.height);
    stream.fanout.restart();
    encoder.resize(size);
    budget.rate = bandwidthOf(size);
    capture.resize(size.width, size.height, size.fps);
    return true;
  });
  function resize(width: number, height: number) {
    // Nothing to resize before the capture runs (`resizes` is set by then): a viewer who has not waited for
    // /health to say ready, as players do, is ignored rather than stopping the host.
    if (!ready) return;
    resizes.resize(width, height);
  }

  const done = new Promise<{ code: number; reason: string }>((resolve) => {
    child.once('error', (error) =>
      resolve({ code: 1, reason: `${file} could not be started: ${error.message}` }),
    );
    child.once('exit', (code, signal) => {
      const last = tail.lines(3);
      if (code === 0) return resolve({ code: 0, reason: `${file} exited` });
      const ending = sandbox.ending(code, signal);
      if (ending.outOfMemory) return resolve({ code: 1, reason: `${file} ${ending.outOfMemory}` });
      const how = ending.signal ? `was stopped by ${ending.signal}` : `exited with code ${code}`;
      resolve({ code: 1, reason: `${file} ${how}${last ? `; its last output: ${last}` : ''}` });
    });
    void x.exited.then((reason) => resolve({ code: 1, reason }));
    void neverStreams.then((reason) => resolve({ code: 1, reason }));
  });

  let closing: Promise<void> | undefined;
  return {
    signalingPort: stream.signalingPort,
    stream,
    done,
    close() {
      closing ??= (async () => {
        resizes.close();
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const force = setTimeout(() => child.kill('SIGKILL'), 2_000);
          await Promise.race([done, new Promise((r) => setTimeout(r, 2_500))]);
          clearTimeout(force);
        }
        capture.close();
        encoder.stop();
        client.close();
        await stream.close();
        await x.stop();
        await sandbox.close();
      })();
      return closing;
    },
  };
}
