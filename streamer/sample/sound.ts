/**
 * The sample application's sound, so that sound can be tested and measured without X programs: a 440 Hz tone
 * while a key is held, and a short 660 Hz beep on each pointer press (drawn as a ripple at the same instant).
 * Frames of 10 ms go to the session's AudioStream on a schedule measured from its start, and a sound starts with the
 * next frame on it, within 10 ms. (Making that frame at once and restarting the schedule from there, as an earlier
 * version did, ran the stream's timestamps ahead of the clock by up to a frame at every key: the browser's jitter
 * buffer waits for a packet's time, so it carried the sum into every later sound, 20 to 30 ms more at the median.)
 */
import { FRAME_BYTES, FRAME_MS, FRAME_SAMPLES, SAMPLE_RATE, type AudioStream } from '../media/audio.ts';

export const TONE_HZ = 440;
export const BEEP_HZ = 660;
export const BEEP_MS = 120;
/** Loud enough to hear, a third of full scale. */
const AMPLITUDE = 0.33 * 32767;
/** A ramp this long at each start and end, so the sound does not click. */
const RAMP_SAMPLES = 48;
/** Behind by more frames than this (a busy machine): the missed ones are dropped, not sent in a burst. */
const MAX_CATCH_UP = 5;
/** A held key sounds at most this long: a viewer that left with a key down does not leave a tone on. */
const MAX_HOLD_MS = 30_000;

export interface SoundClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: SoundClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** One voice: a sine that ramps in and out. */
class Voice {
  private phase = 0;
  /** 0..RAMP_SAMPLES: how far the ramp is up. */
  private level = 0;
  on = false;

  constructor(private readonly hz: number) {}

  get audible(): boolean {
    return this.on || this.level > 0;
  }

  /** Adds this voice's next samples to `mix` (one value per sample, both channels the same). */
  addTo(mix: Float32Array): void {
    const step = (2 * Math.PI * this.hz) / SAMPLE_RATE;
    for (let i = 0; i < mix.length; i++) {
      if (this.on && this.level < RAMP_SAMPLES) this.level++;
      else if (!this.on && this.level > 0) this.level--;
      if (this.level === 0) {
        this.phase = 0;
        continue;
      }
      mix[i]! += (Math.sin(this.phase) * AMPLITUDE * this.level) / RAMP_SAMPLES;
      this.phase = (this.phase + step) % (2 * Math.PI);
    }
  }
}

export class SampleSound {
  private readonly tone = new Voice(TONE_HZ);
  private readonly beep = new Voice(BEEP_HZ);
  private readonly held = new Map<string, number>();
  /** Frames left of the current beep. */
  private beepFrames = 0;
  private started = 0;
  private made = 0;
  private timer: unknown = null;
  private readonly mix = new Float32Array(FRAME_SAMPLES);

  constructor(
    private readonly stream: Pick<AudioStream, 'push'>,
    private readonly clock: SoundClock = realClock,
  ) {}

  /** Starts making frames (silence until something sounds). */
  start(): void {
    this.restart();
  }

  stop(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  keyDown(code: string): void {
    this.held.set(code, this.clock.now());
    this.tone.on = true;
  }

  keyUp(code: string): void {
    this.held.delete(code);
    this.tone.on = this.held.size > 0;
  }

  /** Every key is up: the controlling viewer left or lost focus. */
  releaseAll(): void {
    this.held.clear();
    this.tone.on = false;
  }

  press(): void {
    this.beep.on = true;
    this.beepFrames = Math.round(BEEP_MS / FRAME_MS);
  }

  private restart(): void {
    this.started = this.clock.now();
    this.made = 0;
    this.tick();
  }

  private tick(): void {
    const now = this.clock.now();
    let due = Math.floor((now - this.started) / FRAME_MS) + 1 - this.made;
    if (due > MAX_CATCH_UP) {
      this.made += due - 1;
      due = 1;
    }
    for (; due > 0; due--) this.frame(now);
    const next = this.started + this.made * FRAME_MS;
    this.timer = this.clock.setTimeout(() => this.tick(), Math.max(0, next - this.clock.now()));
  }

  private frame(now: number): void {
    this.made++;
    for (const [code, since] of this.held) if (now - since > MAX_HOLD_MS) this.keyUp(code);
    const frame = Buffer.alloc(FRAME_BYTES);
    if (this.tone.audible || this.beep.audible) {
      this.mix.fill(0);
      this.tone.addTo(this.mix);
      this.beep.addTo(this.mix);
      for (let i = 0; i < FRAME_SAMPLES; i++) {
        const v = Math.max(-32768, Math.min(32767, Math.round(this.mix[i]!)));
        frame.writeInt16LE(v, i * 4);
        frame.writeInt16LE(v, i * 4 + 2);
      }
    }
    if (this.beepFrames > 0 && --this.beepFrames === 0) this.beep.on = false;
    this.stream.push(frame);
  }
}
