/**
 * The sample streaming application: draws the scene, encodes it, fans the video out to every viewer
 * and applies their input; a key held sounds a tone and a press a beep (sound.ts). `startStreamer` is what main.ts
 * and the tests call. It is the display host's skeleton (display-host.ts) with the scene (scene-loop.ts) in place
 * of the display and the program: every part makes what it owns in one scope, and they talk in typed events.
 */
import type { StreamerOptions } from '../runtime/stream-options.ts';
import { AudioStream } from '../media/audio.ts';
import { Scope } from '../runtime/scope.ts';
import type { Health } from '../transport/signaling.ts';
import { StreamServer } from '../transport/stream-server.ts';
import type { StreamingApp } from '../runtime/streaming-app.ts';
import { VideoPipeline } from '../media/video-pipeline.ts';
import { openSessionFiles } from '../files/session.ts';
import { SceneLoop } from './scene-loop.ts';
import { SampleSound } from './sound.ts';

/** A running application; `done` resolves once it cannot stream (its encoder failed before its first frame). */
export interface Streamer extends StreamingApp {
  /** ffmpeg's pid, while it runs. */
  encoderPid(): number | undefined;
  health(): Health | null;
  /** Viewers connected or connecting. */
  viewers(): number;
  /** The pointer the scene draws (the last one of the viewer in control), null before any: seen without the video. */
  pointer(): { x: number; y: number } | null;
}

export interface StartOptions {
  /** No packet from a viewer for this long ends it. */
  silenceTimeoutMs?: number;
  log?: (line: string) => void;
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
  const scope = new Scope();
  return scope.run(async () => {
    const video = new VideoPipeline(scope, options, log);
    // Ready does not wait for the first frame, so a start that can never stream must end the session.
    const neverStreams = new Promise<string>((resolve) => video.once('failed', resolve));
    const encoder = await video.start();
    const audio = options.audio ? scope.use(new AudioStream(), (made) => made.close()) : null;
    const sound = audio && scope.use(new SampleSound(audio), (made) => made.stop());
    const scene = new SceneLoop(scope, options, video, sound);
    // A plain folder of its own: there is no program, nor a session user, to bound.
    const files = await scope.adopt(openSessionFiles(options.filesMb, null, log), (made) => made.close());
    const stream = new StreamServer(
      scope,
      // Input to photon matters more here than smooth pacing: frames are shown as soon as they are decoded.
      {
        ...options,
        fanout: video.fanout,
        sound: audio,
        silenceTimeoutMs: start.silenceTimeoutMs,
        zeroPlayoutDelay: true,
        files: files.folder,
        log,
      },
      {
        queries: new Set(['loadingStateQuery']),
        size: () => video.size,
        // The canvas library takes about 30 ms to load and the first frame 10 ms more: both overlap the
        // service's answer and the browser's page change instead of holding up the ready line. The first
        // offer waits for them (stream-server.ts), and ffmpeg loads its libraries meanwhile.
        prepare: () => {
          scene.start();
          sound?.start();
        },
      },
    );
    stream.on('input', (event) => scene.input(event));
    stream.on('message', (message, viewer) => {
      for (const reply of scene.answer(message)) viewer.sendMessage(reply);
    });
    stream.on('viewers', (count) => {
      scene.state.viewers = count;
      // Keys held by a viewer that left are up.
      if (count === 0) sound?.releaseAll();
    });
    // So are those of one who no longer controls.
    stream.on('control', () => sound?.releaseAll());
    await stream.listen();
    files.tellChangesTo(stream);

    return {
      signalingPort: stream.signalingPort,
      done: neverStreams.then((reason) => ({ code: 1, reason })),
      close: () => scope.dispose(),
      encoderPid: () => encoder.pid,
      health: stream.health,
      viewers: () => stream.viewers(),
      pointer: () => scene.pointer(),
    };
  });
}
