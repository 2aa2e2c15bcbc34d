/**
 * The sample streaming application: draws the scene, encodes it, fans the video out to every viewer
 * and applies their input; a key held sounds a tone and a press a beep (sound.ts). `startStreamer` is what main.ts and the tests call.
 */
import { resizedTo, type StreamerOptions } from '../transport/args.ts';
import { AudioStream } from '../transport/audio.ts';
import { Encoder } from '../transport/encoder.ts';
import { chooseEncoder } from '../transport/ffmpeg-args.ts';
import type { AppMessage, InputEvent } from '../../protocol/data-channels.ts';
import { ResizeThrottle } from '../transport/resize-throttle.ts';
import { VideoFanout } from '../transport/rtp.ts';
import { Scene, type SceneState } from './scene.ts';
import { SampleSound } from './sound.ts';
import type { Health } from '../transport/signaling.ts';
import { encoderNeverStarted, startStreamServer } from '../transport/stream-server.ts';
import { openSessionFiles } from '../files/session.ts';

/** A running application. */
export interface Streamer {
  /** Ports actually bound (the signaling port may have been 0 in tests). */
  signalingPort: number;
  /** ffmpeg's pid, while it runs. */
  encoderPid(): number | undefined;
  health(): Health | null;
  /** Viewers connected or connecting. */
  viewers(): number;
  /** The pointer the scene draws (the last one of the viewer in control), null before any: seen without the video. */
  pointer(): { x: number; y: number } | null;
  /** Stops viewers, the encoder and the server. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** No packet from a viewer for this long ends it. */
  silenceTimeoutMs?: number;
  log?: (line: string) => void;
  /** The application cannot stream (its encoder failed before its first frame); main.ts exits with it. */
  onFatal?: (reason: string) => void;
}

/**
 * Starts everything; resolves once the signaling port listens and the scene draws (frames follow shortly;
 * see /health). The encoder first: ffmpeg takes the longest to start (about 80 ms to load its libraries).
 * Meanwhile this process listens, says it is ready (/health answers, the ready line is out), then loads the
 * canvas, draws the first frame into ffmpeg's pipe and loads the WebRTC stack; the first keyframe follows
 * within tens of milliseconds.
 */
export async function startStreamer(options: StreamerOptions, start: StartOptions = {}): Promise<Streamer> {
  const log = start.log ?? (() => undefined);
  const state: SceneState = {
    appName: options.appName,
    appVersion: options.appVersion,
    profile: options.profile,
    stageUri: options.usdStageUri,
    loadingState: options.usdStageUri ? 'idle' : 'none',
    pointer: null,
    lastKey: '',
    viewers: 0,
    seq: 0,
    testMarks: options.testMarks,
  };
  let size = { width: options.width, height: options.height, fps: options.fps };
  const fanout = new VideoFanout(size.fps, options.codec);
  const choice = await chooseEncoder(options.codec);
  log(`encoding ${choice.reason}`);
  const encoder = new Encoder({
    encoder: choice.encoder,
    stillPath: options.stillPath,
    onPacket: (packet) => fanout.push(packet),
    onUnexpectedExit: (reason) => {
      // Ready does not wait for the first frame, so a start that can never stream must end the session.
      const fatal = encoderNeverStarted(fanout, reason);
      if (fatal) return start.onFatal?.(fatal);
      log(`${reason}; restarting it`);
      fanout.restart();
    },
  });
  await encoder.start(size);
  const audio = options.audio ? new AudioStream() : null;
  const sound = audio && new SampleSound(audio);
  // Made once the service can see this application ready (`prepare` below): nothing uses it before.
  let scene: Scene;

  const resize = (width: number, height: number): boolean => {
    const next = resizedTo(width, height, options, size);
    if (!next) return false;
    const { width: w, height: h } = next;
    size = { ...size, ...next };
    const frame = scene.frame;
    scene = new Scene(w, h, state);
    scene.frame = frame;
    state.pointer = state.pointer && { x: Math.min(state.pointer.x, w), y: Math.min(state.pointer.y, h) };
    fanout.restart();
    encoder.resize(size);
    return true;
  };
  // Each resize restarts the encoder: at most one a second, the last size asked for winning (resize-throttle.ts).
  const resizes = new ResizeThrottle(resize);

  /** Set once frames are drawn: draws one at once for input that changes the picture. */
  let drawSoon: () => void = () => undefined;

  const applyInput = (event: InputEvent) => {
    switch (event.type) {
      case 'pointermove':
        state.pointer = { x: event.x, y: event.y };
        break;
      case 'pointerdown':
        state.pointer = { x: event.x, y: event.y };
        scene.addRipple(event.x, event.y, performance.now());
        sound?.press();
        break;
      case 'pointerup':
      case 'wheel':
        state.pointer = { x: event.x, y: event.y };
        break;
      case 'keydown':
        state.lastKey = event.key;
        sound?.keyDown(event.code);
        break;
      case 'keyup':
        sound?.keyUp(event.code);
        break;
      case 'touchstart':
      case 'touchmove': {
        const first = event.touches[0];
        if (first) state.pointer = { x: first.x, y: first.y };
        if (first && event.type === 'touchstart') {
          scene.addRipple(first.x, first.y, performance.now());
          sound?.press();
        }
        break;
      }
      case 'resize':
        resizes.resize(event.width, event.height);
        break;
      default:
        break;
    }
    if (event.seq !== undefined) state.seq = event.seq;
    // A resize restarts the encoder, whose first frame comes on the schedule.
    if (event.type !== 'resize') drawSoon();
  };

  const answerMessage = (message: AppMessage): AppMessage[] => {
    switch (message.event_type) {
      case 'openStageRequest': {
        const url = message.payload.url;
        if (typeof url !== 'string' || url.length > 2048) {
          return [{ event_type: 'openedStageResult', payload: { result: 'error', url: String(url ?? '') } }];
        }
        state.stageUri = url;
        state.loadingState = 'idle';
        return [{ event_type: 'openedStageResult', payload: { result: 'success', url } }];
      }
      case 'loadingStateQuery':
        return [
          {
            event_type: 'loadingStateResponse',
            payload: { url: state.stageUri, loading_state: state.stageUri ? state.loadingState : 'idle' },
          },
        ];
      default:
        return [
          {
            event_type: 'error',
            payload: { message: `Unknown event type: ${message.event_type.slice(0, 100)}` },
          },
        ];
    }
  };

  // Frames are drawn on a fixed schedule measured from its start, so timer drift does not lower the rate.
  let started = performance.now();
  let drawn = 0;
  let lastEager = -Infinity;
  let frameTimer: NodeJS.Timeout | null = null;
  const tick = () => {
    const now = performance.now();
    const buffer = encoder.acquire();
    if (buffer) encoder.write(scene.render(now, buffer));
    drawn++;
    let next = started + (drawn * 1000) / size.fps;
    // Far behind (a busy machine): skip the missed frames rather than rush them out in a burst.
    if (next < now - 1000 / size.fps) {
      drawn = Math.ceil(((now - started) * size.fps) / 1000);
      next = started + (drawn * 1000) / size.fps;
    }
    frameTimer = setTimeout(tick, Math.max(0, next - performance.now()));
  };

  let stream;
  let files;
  try {
    // A plain folder of its own: there is no program, nor a session user, to bound.
    files = await openSessionFiles(options.filesMb, null, log);
    stream = await startStreamServer(
      // Input to photon matters more here than smooth pacing: frames are shown as soon as they are decoded.
      {
        ...options,
        fanout,
        sound: audio,
        silenceTimeoutMs: start.silenceTimeoutMs,
        zeroPlayoutDelay: true,
        files: files.folder,
        log,
      },
      {
        queries: new Set(['loadingStateQuery']),
        onInput: (event) => applyInput(event),
        onMessage: (message) => answerMessage(message),
        readiness: () => size,
        // The canvas library takes about 30 ms to load and the first frame 10 ms more: both overlap the
        // service's answer and the browser's page change instead of holding up the ready line. The first
        // offer waits for them (stream-server.ts), and ffmpeg loads its libraries meanwhile.
        prepare: () => {
          scene = new Scene(size.width, size.height, state);
          started = performance.now();
          tick();
          sound?.start();
        },
        onViewers: (count) => {
          state.viewers = count;
          // Keys held by a viewer that left are up.
          if (count === 0) sound?.releaseAll();
        },
        // So are those of one who no longer controls.
        onControl: () => sound?.releaseAll(),
      },
    );
  } catch (error) {
    // A port another program holds, say: nothing of this start may outlive it.
    resizes.close();
    if (frameTimer) clearTimeout(frameTimer);
    frameTimer = null;
    sound?.stop();
    audio?.close();
    encoder.stop();
    await files?.close();
    throw error;
  }
  files.tellChangesTo(stream);
  // Input is drawn at once rather than at the next tick, and the schedule starts again from then. At most one
  // such frame an interval, so that a stream of input no more than doubles the frame rate.
  drawSoon = () => {
    const now = performance.now();
    if (frameTimer === null || now - lastEager < 1000 / size.fps) return;
    lastEager = now;
    clearTimeout(frameTimer);
    started = now;
    drawn = 0;
    tick();
  };

  return {
    signalingPort: stream.signalingPort,
    encoderPid: () => encoder.pid,
    health: stream.health,
    viewers: stream.viewers,
    pointer: () => state.pointer && { ...state.pointer },
    async close() {
      resizes.close();
      if (frameTimer) clearTimeout(frameTimer);
      frameTimer = null;
      sound?.stop();
      encoder.stop();
      await stream.close();
      await files.close();
      audio?.close();
    },
  };
}
