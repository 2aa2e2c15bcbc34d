import { describe, expect, it } from 'vitest';
import { FRAME_BYTES, FRAME_MS, isSilent } from '../media/audio.ts';
import { BEEP_MS, SampleSound, type SoundClock } from './sound.ts';

/** A clock that moves only when told, running the timers that fall due. */
class FakeClock implements SoundClock {
  time = 0;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 1;
  now = () => this.time;
  setTimeout = (fn: () => void, ms: number) => {
    const id = this.nextId++;
    this.timers.push({ at: this.time + ms, fn, id });
    return id;
  };
  clearTimeout = (id: unknown) => {
    this.timers = this.timers.filter((t) => t.id !== id);
  };
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = Math.max(this.time, due.at);
      due.fn();
    }
    this.time = end;
  }
}

function setUp() {
  const clock = new FakeClock();
  const frames: Buffer[] = [];
  const sound = new SampleSound({ push: (f) => frames.push(Buffer.from(f)) }, clock);
  sound.start();
  return { clock, frames, sound };
}

/** The frequency of some frames' left channel, from its zero crossings. */
function frequency(frames: Buffer[]): number {
  const pcm = Buffer.concat(frames);
  let crossings = 0;
  for (let i = 1; i < pcm.length / 4; i++) {
    if (pcm.readInt16LE(i * 4) >= 0 !== pcm.readInt16LE((i - 1) * 4) >= 0) crossings++;
  }
  return crossings / 2 / ((frames.length * FRAME_MS) / 1000);
}

describe('SampleSound', () => {
  it('makes one frame every 10 ms of silence, on a schedule that does not drift', () => {
    const { clock, frames } = setUp();
    clock.advance(1000);
    expect(frames).toHaveLength(101);
    expect(frames.every((f) => f.length === FRAME_BYTES && isSilent(f))).toBe(true);
  });

  it('keeps its schedule through keys and presses, so that its frames stay with the clock', () => {
    const { clock, frames, sound } = setUp();
    for (let i = 0; i < 5; i++) {
      clock.advance(97);
      sound.keyDown('KeyA');
      clock.advance(53);
      sound.keyUp('KeyA');
      sound.press();
    }
    clock.advance(250);
    // 1,000 ms: the frame at 0 and one every 10 ms after it, as in silence.
    expect(frames).toHaveLength(101);
  });

  it('sounds a 440 Hz tone from the moment a key goes down until it comes up', () => {
    const { clock, frames, sound } = setUp();
    clock.advance(33);
    const before = frames.length;
    sound.keyDown('KeyA');
    // The tone starts with the next frame on the schedule, due at 40 ms.
    expect(frames.length).toBe(before);
    clock.advance(7);
    expect(frames.length).toBe(before + 1);
    expect(isSilent(frames.at(-1)!)).toBe(false);
    clock.advance(200);
    expect(frequency(frames.slice(-10))).toBeCloseTo(440, -1);
    sound.keyUp('KeyA');
    clock.advance(30);
    expect(isSilent(frames.at(-1)!)).toBe(true);
  });

  it('keeps the tone while any key is held, and stops it when the viewer leaves', () => {
    const { clock, frames, sound } = setUp();
    sound.keyDown('KeyA');
    sound.keyDown('KeyB');
    sound.keyUp('KeyA');
    clock.advance(50);
    expect(isSilent(frames.at(-1)!)).toBe(false);
    sound.releaseAll();
    clock.advance(30);
    expect(isSilent(frames.at(-1)!)).toBe(true);
  });

  it('beeps at 660 Hz for a moment on a press', () => {
    const { clock, frames, sound } = setUp();
    clock.advance(15);
    const at = frames.length;
    sound.press();
    clock.advance(BEEP_MS + 50);
    const sounding = frames.slice(at).filter((f) => !isSilent(f));
    expect(sounding.length).toBeGreaterThanOrEqual(BEEP_MS / FRAME_MS);
    expect(sounding.length).toBeLessThanOrEqual(BEEP_MS / FRAME_MS + 1);
    expect(frequency(sounding.slice(2, 10))).toBeCloseTo(660, -1);
  });

  it('drops what it missed while the machine was busy instead of sending a burst', () => {
    const { clock, frames } = setUp();
    const made = frames.length;
    clock.time += 500; // half a second in which no timer ran
    clock.advance(0);
    expect(frames.length - made).toBe(1);
    clock.advance(100);
    expect(frames.length - made).toBe(11);
  });

  it('stops making frames when stopped', () => {
    const { clock, frames, sound } = setUp();
    sound.stop();
    const made = frames.length;
    clock.advance(100);
    expect(frames.length).toBe(made);
  });
});
