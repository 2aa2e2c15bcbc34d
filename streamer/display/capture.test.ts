/**
 * The capture's parts that need no display: the rectangles it reads, the frame it fills, the byte budget, and
 * how its frames are paced in time, on a clock the test moves (fake timers) over a stand-in for the display.
 * What it reads from a real X server is capture.process.test.ts's.
 */
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ByteBudget } from './byte-budget.ts';
import { DamageCapture, FIRST_REPEAT_MS, IDLE_REFRESH_MS } from './capture.ts';
import { fakeFrameClock } from '../../test-support/fake-frame-clock.ts';
import { blit, drawCursor, toRead, type Rect } from './frame-pixels.ts';

describe('the rectangles read', () => {
  it('are clipped to the captured area, and those wholly outside it are dropped', () => {
    const rects = [
      { x: -5, y: 10, width: 20, height: 5 },
      { x: 90, y: 90, width: 50, height: 50 },
      { x: 200, y: 0, width: 10, height: 10 },
    ];
    expect(toRead(rects, 100, 100)).toEqual([
      { x: 0, y: 10, width: 15, height: 5 },
      { x: 90, y: 90, width: 10, height: 10 },
    ]);
  });

  it('are read across the whole width when wider than half of it', () => {
    expect(toRead([{ x: 10, y: 5, width: 51, height: 3 }], 100, 100)).toEqual([
      { x: 0, y: 5, width: 100, height: 3 },
    ]);
    expect(toRead([{ x: 10, y: 5, width: 50, height: 3 }], 100, 100)).toEqual([
      { x: 10, y: 5, width: 50, height: 3 },
    ]);
  });

  it('become their bounding box when there are many, or when they overlap past the area', () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ x: i * 4, y: i, width: 2, height: 2 }));
    expect(toRead(many, 100, 100)).toEqual([{ x: 0, y: 0, width: 100, height: 21 }]);
    const narrow = Array.from({ length: 18 }, (_, i) => ({ x: i * 2, y: i, width: 2, height: 2 }));
    expect(toRead(narrow, 100, 100)).toEqual([{ x: 0, y: 0, width: 36, height: 19 }]);
    const overlapping = [
      { x: 0, y: 0, width: 10, height: 10 },
      { x: 0, y: 0, width: 10, height: 10 },
    ];
    expect(toRead(overlapping, 10, 10)).toEqual([{ x: 0, y: 0, width: 10, height: 10 }]);
  });
});

describe('a frame', () => {
  it('takes the pixels read at their place', () => {
    const frame = Buffer.alloc(4 * 3 * 4);
    const pixels = Buffer.from(Array.from({ length: 2 * 2 * 4 }, (_, i) => i + 1));
    blit(frame, 4, { x: 1, y: 1, width: 2, height: 2 }, pixels);
    const at = (x: number, y: number) => [...frame.subarray((y * 4 + x) * 4, (y * 4 + x) * 4 + 4)];
    expect(at(1, 1)).toEqual([1, 2, 3, 4]);
    expect(at(2, 2)).toEqual([13, 14, 15, 16]);
    expect(at(0, 1)).toEqual([0, 0, 0, 0]);
    expect(at(3, 2)).toEqual([0, 0, 0, 0]);
  });

  it('shows the cursor over it at its hot spot, blended by its alpha and cut at the edges', () => {
    const width = 4;
    const frame = Buffer.alloc(width * 4 * 4, 100);
    // 2x2 cursor, hot spot at its bottom-right pixel: opaque white, transparent, half-transparent black, opaque red.
    const pixels = Buffer.alloc(16);
    pixels.writeUInt32LE(0xffffffff, 0);
    pixels.writeUInt32LE(0x00000000, 4);
    pixels.writeUInt32LE(0x80000000, 8);
    pixels.writeUInt32LE(0xffff0000, 12);
    drawCursor(frame, width, 4, { width: 2, height: 2, xhot: 1, yhot: 1, pixels }, 1, 1);
    const at = (x: number, y: number) => [...frame.subarray((y * width + x) * 4, (y * width + x) * 4 + 3)];
    expect(at(0, 0)).toEqual([255, 255, 255]);
    expect(at(1, 0)).toEqual([100, 100, 100]);
    expect(at(0, 1)).toEqual([50, 50, 50]);
    expect(at(1, 1)).toEqual([0, 0, 255]); // BGRX: red is the third byte
    // At the corner only the part inside the frame is drawn, and nothing is written out of bounds.
    drawCursor(frame, width, 4, { width: 2, height: 2, xhot: 0, yhot: 0, pixels }, 3, 3);
    expect(at(3, 3)).toEqual([255, 255, 255]);
    expect(frame.length).toBe(width * 4 * 4);
  });
});

describe('the byte budget', () => {
  it('lets frames go while it lasts, then makes them wait as long as the overdraft takes to earn back', () => {
    const budget = new ByteBudget(1000, 1, 0);
    expect(budget.waitMs(0)).toBe(0);
    budget.spend(600, 0);
    expect(budget.waitMs(0)).toBe(0);
    budget.spend(900, 0);
    expect(budget.waitMs(0)).toBeCloseTo(500);
    expect(budget.waitMs(250)).toBeCloseTo(250);
    expect(budget.waitMs(500)).toBe(0);
    // Saving is capped at one burst: a long quiet time does not allow an unbounded burst after it.
    expect(budget.waitMs(60_000)).toBe(0);
    budget.spend(2000, 60_000);
    expect(budget.waitMs(60_000)).toBeCloseTo(1000);
  });
});

describe('the pacing of frames, on a clock the test moves', () => {
  const W = 320;
  const H = 240;
  const FRAME_MS = 1000 / 30;
  let X: EventEmitter & { terminate(): void };
  let reads: Rect[][];
  let frames: number[];
  let behind: boolean;
  let resting: boolean;
  let capture: DamageCapture;

  /** A capture of a stand-in display at 30 fps, two buffers as the encoder's, `budget` its bandwidth. */
  function start(budget = new ByteBudget(1e9, 1, 0)): DamageCapture {
    X = Object.assign(new EventEmitter(), { terminate: () => undefined });
    const pool = [Buffer.alloc(W * H * 4), Buffer.alloc(W * H * 4)];
    const cursor = { width: 2, height: 2, xhot: 0, yhot: 0, cursorImage: Buffer.alloc(16, 0xff), x: 5, y: 5 };
    return DamageCapture.over(
      {
        X,
        damageExt: { Subtract: () => undefined },
        // The server's reply comes after the capture has started, as a real one does.
        fixes: {
          GetCursorImage: (cb: (err: null, image: object) => void) =>
            void Promise.resolve().then(() => cb(null, cursor)),
        },
        damage: 1,
        read: async (rects) => void reads.push([...rects]),
      },
      {
        width: W,
        height: H,
        fps: 30,
        maxWidth: W,
        maxHeight: H,
        budget,
        acquire: () => (behind || resting ? null : pool.reverse()[0]!),
        resting: () => resting,
        send: () => void frames.push(Date.now()),
        clock: fakeFrameClock,
      },
    );
  }

  /** The display reports that `rect` changed. */
  const damage = (rect: Rect) =>
    X.emit('event', { name: 'DamageNotify', area: { x: rect.x, y: rect.y, w: rect.width, h: rect.height } });

  /** The times of the frames sent from `from` on, from `from`. */
  const sentSince = (from: number) => frames.filter((at) => at >= from).map((at) => at - from);

  beforeEach(() => {
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    reads = [];
    frames = [];
    behind = false;
    resting = false;
  });
  afterEach(() => {
    capture.close();
    vi.useRealTimers();
  });

  it('sends the whole picture at once, then only what changed, as soon as the display reports it', async () => {
    capture = start();
    await vi.advanceTimersByTimeAsync(0);
    expect(frames[0]).toBe(0);
    expect(reads[0]).toEqual([{ x: 0, y: 0, width: W, height: H }]);
    // The other buffer is read whole too, once; then the picture is still.
    await vi.advanceTimersByTimeAsync(3_000);
    const still = Date.now();
    reads = [];
    const window = { x: 50, y: 60, width: 20, height: 10 };
    damage(window);
    await vi.advanceTimersByTimeAsync(0);
    expect(sentSince(still)).toEqual([0]);
    // Into one buffer, then into the other, which missed it: the window twice, nothing more.
    await vi.advanceTimersByTimeAsync(FIRST_REPEAT_MS);
    expect(reads).toEqual([[window], [window]]);
  });

  it('sends a change after a still moment twice more, soon and a frame later, then waits for the idle refresh', async () => {
    capture = start();
    await vi.advanceTimersByTimeAsync(3_000);
    const still = Date.now();
    damage({ x: 10, y: 200, width: 30, height: 20 });
    await vi.advanceTimersByTimeAsync(IDLE_REFRESH_MS + 100);
    const sent = sentSince(still);
    expect(sent).toHaveLength(4);
    expect(sent[0]).toBe(0);
    expect(sent[1]).toBeCloseTo(FIRST_REPEAT_MS, 0);
    expect(sent[2]).toBeCloseTo(FIRST_REPEAT_MS + FRAME_MS, 0);
    expect(sent[3]).toBeCloseTo(FIRST_REPEAT_MS + FRAME_MS + IDLE_REFRESH_MS, 0);
  });

  it('sends no more frames than its rate while the picture keeps changing', async () => {
    capture = start();
    await vi.advanceTimersByTimeAsync(3_000);
    const began = Date.now();
    for (let x = 0; Date.now() - began < 1000; x = (x + 3) % 280) {
      damage({ x, y: 150, width: 23, height: 20 });
      await vi.advanceTimersByTimeAsync(40);
    }
    // A change every 40 ms: a frame a turn (33 ms at 30 fps: timers count whole milliseconds), repeats included,
    // after the early repeat of the first change, which came after a still moment. A repeat 5 ms after each
    // change would make 50.
    const sent = sentSince(began).filter((at) => at < 1000);
    expect(sent.slice(0, 2)).toEqual([0, FIRST_REPEAT_MS]);
    const gaps = sent.slice(2).map((at, i) => at - sent[i + 1]!);
    expect(new Set(gaps)).toEqual(new Set([Math.floor(FRAME_MS)]));
    expect(sent.length).toBeLessThanOrEqual(32);
  });

  it('sends the picture again every second while nothing changes', async () => {
    capture = start();
    await vi.advanceTimersByTimeAsync(3_000);
    const quiet = Date.now();
    const readBefore = reads.length;
    await vi.advanceTimersByTimeAsync(IDLE_REFRESH_MS * 3);
    const sent = sentSince(quiet);
    expect(sent).toHaveLength(3);
    expect([sent[1]! - sent[0]!, sent[2]! - sent[1]!]).toEqual([IDLE_REFRESH_MS, IDLE_REFRESH_MS]);
    // A repeat reads nothing: the picture did not change.
    expect(reads).toHaveLength(readBefore);
  });

  it('sends a frame when only the drawn pointer moves, none while the viewers draw it, and one when it is drawn again', async () => {
    capture = start();
    await vi.advanceTimersByTimeAsync(3_000);
    let from = Date.now();
    capture.pointerAt(200, 150);
    await vi.advanceTimersByTimeAsync(0);
    expect(sentSince(from)).toEqual([0]);
    capture.cursorInFrames(false);
    await vi.advanceTimersByTimeAsync(500);
    from = Date.now();
    capture.pointerAt(210, 160);
    await vi.advanceTimersByTimeAsync(300);
    expect(sentSince(from)).toEqual([]);
    capture.cursorInFrames(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(sentSince(from)).toEqual([300]);
  });

  it('tries again at the next turn while the encoder is behind', async () => {
    capture = start();
    await vi.advanceTimersByTimeAsync(3_000);
    behind = true;
    const from = Date.now();
    damage({ x: 0, y: 0, width: 10, height: 10 });
    await vi.advanceTimersByTimeAsync(100);
    expect(sentSince(from)).toEqual([]);
    behind = false;
    await vi.advanceTimersByTimeAsync(FRAME_MS);
    const sent = sentSince(from);
    expect(sent[0]).toBeGreaterThan(100);
    expect(sent[0]).toBeLessThanOrEqual(100 + FRAME_MS);
  });

  it('asks nothing of a resting encoder, not even at the idle refresh, and sends the whole picture at once when it wakes', async () => {
    capture = start();
    await vi.advanceTimersByTimeAsync(3_000);
    resting = true;
    // The idle refresh finds the encoder at rest, and no turn follows however long.
    await vi.advanceTimersByTimeAsync(2 * IDLE_REFRESH_MS);
    const from = Date.now();
    reads = [];
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sentSince(from)).toEqual([]);
    // A change at rest is kept for the wake; it tries once, and waits.
    damage({ x: 0, y: 0, width: 10, height: 10 });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(sentSince(from)).toEqual([]);
    expect(reads).toEqual([]);
    resting = false;
    const woke = Date.now();
    capture.refresh();
    await vi.advanceTimersByTimeAsync(0);
    expect(sentSince(woke)).toEqual([0]);
    // What changed at rest is read into it.
    expect(reads[0]).toContainEqual({ x: 0, y: 0, width: 10, height: 10 });
  });

  it("holds frames while the encoder's output is over the bandwidth, until it is back under", async () => {
    const budget = new ByteBudget(1000, 1, 0);
    capture = start(budget);
    await vi.advanceTimersByTimeAsync(3_000);
    // Half a second's worth over.
    budget.spend(1500, Date.now());
    const from = Date.now();
    damage({ x: 0, y: 0, width: 10, height: 10 });
    await vi.advanceTimersByTimeAsync(499);
    expect(sentSince(from)).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sentSince(from)).toEqual([500]);
  });

  it('reads the whole new area at once after a resize, and nothing after it is closed', async () => {
    capture = start();
    await vi.advanceTimersByTimeAsync(3_000);
    reads = [];
    capture.resize(160, 120, 30);
    await vi.advanceTimersByTimeAsync(0);
    expect(reads).toEqual([[{ x: 0, y: 0, width: 160, height: 120 }]]);
    capture.close();
    const closed = frames.length;
    damage({ x: 0, y: 0, width: 10, height: 10 });
    await vi.advanceTimersByTimeAsync(IDLE_REFRESH_MS * 3);
    expect(frames).toHaveLength(closed);
  });

  it('says why it stops when the pixels cannot be read, and sends no frame after', async () => {
    capture = start();
    await vi.advanceTimersByTimeAsync(3_000);
    const failed: string[] = [];
    capture.on('failed', (reason) => failed.push(reason));
    X.emit('end');
    expect(failed).toEqual(['the connection to the display ended']);
    const stopped = frames.length;
    await vi.advanceTimersByTimeAsync(IDLE_REFRESH_MS * 3);
    expect(frames).toHaveLength(stopped);
  });
});
