/**
 * The scene part of the sample application, in place of the display host's display and program: what the scene
 * shows (its state), the frames drawn into the video pipeline's encoder on a fixed schedule, a controlling
 * viewer's input applied to it (a key held sounds a tone and a press a beep, sound.ts) and its answers to
 * messages. Its timer is in the application's scope.
 */
import type { AppMessage, InputEvent } from '../../protocol/data-channels.ts';
import type { StreamerOptions } from '../runtime/stream-options.ts';
import type { Scope } from '../runtime/scope.ts';
import type { StreamSize } from '../runtime/stream-options.ts';
import type { VideoPipeline } from '../media/video-pipeline.ts';
import { Scene, type SceneState } from './scene.ts';
import type { SampleSound } from './sound.ts';

export class SceneLoop {
  /** What the scene shows; the stream's viewers are counted into it. */
  readonly state: SceneState;
  /** Made by `start`, once the service can see the application ready: nothing draws before. */
  private scene: Scene | null = null;
  // Frames are drawn on a fixed schedule measured from its start, so timer drift does not lower the rate.
  private started = performance.now();
  private drawn = 0;
  private lastEager = -Infinity;
  private frameTimer: NodeJS.Timeout | null = null;

  constructor(
    scope: Scope,
    options: StreamerOptions,
    private readonly video: VideoPipeline,
    private readonly sound: SampleSound | null,
  ) {
    this.state = {
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
    scope.defer(() => {
      if (this.frameTimer) clearTimeout(this.frameTimer);
      this.frameTimer = null;
    });
    video.on('resized', (size) => this.resized(size));
  }

  /** Makes the scene and draws its first frame; the next follow on the schedule. */
  start(): void {
    const { width, height } = this.video.size;
    this.scene = new Scene(width, height, this.state);
    this.started = performance.now();
    this.tick();
  }

  /** The pointer the scene draws (the last one of the viewer in control), null before any. */
  pointer(): { x: number; y: number } | null {
    return this.state.pointer && { ...this.state.pointer };
  }

  /** An input event of the viewer in control. */
  input(event: InputEvent): void {
    const { state, sound } = this;
    switch (event.type) {
      case 'pointermove':
        state.pointer = { x: event.x, y: event.y };
        break;
      case 'pointerdown':
        state.pointer = { x: event.x, y: event.y };
        this.scene?.addRipple(event.x, event.y, performance.now());
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
          this.scene?.addRipple(first.x, first.y, performance.now());
          sound?.press();
        }
        break;
      }
      case 'resize':
        this.video.resize(event.width, event.height);
        break;
      default:
        break;
    }
    if (event.seq !== undefined) state.seq = event.seq;
    // A resize restarts the encoder, whose first frame comes on the schedule.
    if (event.type !== 'resize') this.drawSoon();
  }

  /** The answers to a message of the viewer in control, or to a query of anyone's. */
  answer(message: AppMessage): AppMessage[] {
    const { state } = this;
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
  }

  /** The stream is at a new size: the scene is made again at it, its frame counter going on. */
  private resized({ width, height }: StreamSize): void {
    const { state } = this;
    const frame = this.scene?.frame ?? 0;
    this.scene = new Scene(width, height, state);
    this.scene.frame = frame;
    state.pointer = state.pointer && {
      x: Math.min(state.pointer.x, width),
      y: Math.min(state.pointer.y, height),
    };
  }

  private tick(): void {
    const now = performance.now();
    const { fps } = this.video.size;
    const buffer = this.video.acquire();
    if (buffer && this.scene) this.video.send(this.scene.render(now, buffer));
    this.drawn++;
    let next = this.started + (this.drawn * 1000) / fps;
    // Far behind (a busy machine): skip the missed frames rather than rush them out in a burst.
    if (next < now - 1000 / fps) {
      this.drawn = Math.ceil(((now - this.started) * fps) / 1000);
      next = this.started + (this.drawn * 1000) / fps;
    }
    this.frameTimer = setTimeout(() => this.tick(), Math.max(0, next - performance.now()));
  }

  /**
   * Input is drawn at once rather than at the next tick, and the schedule starts again from then. At most one
   * such frame an interval, so that a stream of input no more than doubles the frame rate.
   */
  private drawSoon(): void {
    const now = performance.now();
    if (this.frameTimer === null || now - this.lastEager < 1000 / this.video.size.fps) return;
    this.lastEager = now;
    clearTimeout(this.frameTimer);
    this.started = now;
    this.drawn = 0;
    this.tick();
  }
}
