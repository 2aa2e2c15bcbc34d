/**
 * The sample streaming application: draws the scene, encodes it, fans the video out to every viewer
 * and applies their input. `startStreamer` is what main.ts and the tests call.
 */
import type { Server } from 'node:http';
import { even, type StreamerOptions } from './args.ts';
import { Encoder } from './encoder.ts';
import type { AppMessage, InputEvent } from './input.ts';
import { VideoFanout } from './rtp.ts';
import { Scene, type SceneState } from './scene.ts';
import { parseOffer } from './sdp.ts';
import { createSignalingServer, type Health } from './signaling.ts';
import { Viewer, type ViewerHandlers } from './viewer.ts';

/** A running application. */
export interface Streamer {
  /** Ports actually bound (the signaling port may have been 0 in tests). */
  signalingPort: number;
  /** ffmpeg's pid, while it runs. */
  encoderPid(): number | undefined;
  health(): Health | null;
  /** Viewers connected or connecting. */
  viewers(): number;
  /** Stops viewers, the encoder and the server. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** No packet from a viewer for this long ends it. */
  silenceTimeoutMs?: number;
  log?: (line: string) => void;
}

/** Starts everything; resolves once the signaling port listens (frames follow shortly; see /health). */
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
  };
  let size = { width: options.width, height: options.height, fps: options.fps };
  let scene = new Scene(size.width, size.height, state);
  const fanout = new VideoFanout(options.fps);
  const viewers = new Map<string, Viewer>();
  const encoder = new Encoder({
    onPacket: (packet) => fanout.push(packet),
    onUnexpectedExit: (reason) => {
      log(`${reason}; restarting it`);
      fanout.restart();
    },
  });

  const resize = (width: number, height: number) => {
    const w = Math.min(even(width), options.maxWidth);
    const h = Math.min(even(height), options.maxHeight);
    if (w < 64 || h < 64 || (w === size.width && h === size.height)) return;
    size = { ...size, width: w, height: h };
    const frame = scene.frame;
    scene = new Scene(w, h, state);
    scene.frame = frame;
    state.pointer = state.pointer && { x: Math.min(state.pointer.x, w), y: Math.min(state.pointer.y, h) };
    fanout.restart();
    encoder.resize(size);
  };

  const applyInput = (event: InputEvent) => {
    switch (event.type) {
      case 'pointermove':
        state.pointer = { x: event.x, y: event.y };
        break;
      case 'pointerdown':
        state.pointer = { x: event.x, y: event.y };
        scene.addRipple(event.x, event.y, performance.now());
        break;
      case 'pointerup':
      case 'wheel':
        state.pointer = { x: event.x, y: event.y };
        break;
      case 'keydown':
        state.lastKey = event.key;
        break;
      case 'touchstart':
      case 'touchmove': {
        const first = event.touches[0];
        if (first) state.pointer = { x: first.x, y: first.y };
        if (first && event.type === 'touchstart') scene.addRipple(first.x, first.y, performance.now());
        break;
      }
      case 'resize':
        resize(event.width, event.height);
        break;
      default:
        break;
    }
    if (event.seq !== undefined) state.seq = event.seq;
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

  const handlers: ViewerHandlers = {
    onVideoOpen: (viewer) => fanout.add(viewer),
    onInput: (event) => applyInput(event),
    onMessage: (message) => answerMessage(message),
    onClosed: (viewer) => {
      fanout.remove(viewer);
      viewers.delete(viewer.id);
      state.viewers = viewers.size;
      log(`viewer ${viewer.id} left (${viewers.size} left)`);
    },
  };

  // Ready from the first encoded keyframe on; a resize or an encoder restart later does not make it unready.
  let ready = false;
  const health = (): Health | null => {
    ready ||= fanout.hasKeyframe;
    return ready ? { viewers: viewers.size, width: size.width, height: size.height, fps: size.fps } : null;
  };

  const server: Server = createSignalingServer({
    async offer(sdp, watchOnly) {
      const began = performance.now();
      const info = parseOffer(sdp);
      const { viewer, answer } = await Viewer.answer(
        sdp,
        info,
        {
          host: options.host,
          mediaPort: options.mediaPort,
          watchOnly,
          silenceTimeoutMs: start.silenceTimeoutMs ?? 15_000,
        },
        handlers,
      );
      viewers.set(viewer.id, viewer);
      state.viewers = viewers.size;
      const ms = Math.round(performance.now() - began);
      log(`viewer ${viewer.id} joined${watchOnly ? ' (watch only)' : ''} in ${ms} ms (${viewers.size} now)`);
      return { id: viewer.id, answer };
    },
    remove(id) {
      const viewer = viewers.get(id);
      if (!viewer) return false;
      viewer.close();
      return true;
    },
    health,
  });

  await encoder.start(size);
  // Frames are drawn on a fixed schedule measured from the start, so timer drift does not lower the rate.
  const started = performance.now();
  let drawn = 0;
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
  tick();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.signalingPort, options.host, () => resolve());
  });
  const address = server.address();
  return {
    signalingPort: typeof address === 'object' && address ? address.port : options.signalingPort,
    encoderPid: () => encoder.pid,
    health,
    viewers: () => viewers.size,
    async close() {
      if (frameTimer) clearTimeout(frameTimer);
      frameTimer = null;
      for (const viewer of [...viewers.values()]) viewer.close();
      encoder.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
