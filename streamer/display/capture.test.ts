import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ByteBudget } from './byte-budget.ts';
import { DamageCapture, IDLE_REFRESH_MS } from './capture.ts';
import { blit, drawCursor, toRead } from './frame-pixels.ts';
import { call } from './x-call.ts';
import { openDisplay } from './x-client.ts';
import { startXServer, type XServer } from './x-server.ts';

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

describe.each([
  ['in shared memory from the server', false],
  ["from the server's framebuffer file", true],
])('capture on change, from a real X display, pixels read %s', (_, fromFramebuffer) => {
  const W = 320;
  const H = 240;
  let x: XServer;
  let capture: DamageCapture;
  let painter: { X: any; root: number }; // eslint-disable-line @typescript-eslint/no-explicit-any
  const frames: { pixels: Buffer; at: number }[] = [];
  let pool: Buffer[] = [];
  const capturedSize = { width: W, height: H };
  const cursors: unknown[] = [];

  /** The first frame from the `from`th on (by default: the next one) that passes `test`. */
  async function frameWhere(test: (pixels: Buffer) => boolean, from = frames.length): Promise<Buffer> {
    const until = Date.now() + 5000;
    for (;;) {
      const found = frames.slice(from).find((f) => test(f.pixels));
      if (found) return found.pixels;
      if (Date.now() > until) throw new Error('no such frame');
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  /** The index of the frame after `frame`. */
  const afterFrame = (frame: Buffer) => frames.findIndex((f) => f.pixels === frame) + 1;
  const pixel = (frame: Buffer, px: number, py: number) => [
    ...frame.subarray((py * W + px) * 4, (py * W + px) * 4 + 3),
  ];

  beforeAll(async () => {
    x = await startXServer(W, H, () => undefined);
    if (fromFramebuffer) expect(x.framebuffer).toMatchObject({ width: W, height: H, stride: W * 4 });
    capture = await DamageCapture.start(x.display, x.authFile, {
      framebuffer: fromFramebuffer ? x.framebuffer : null,
      width: W,
      height: H,
      fps: 30,
      maxWidth: W,
      maxHeight: H,
      budget: new ByteBudget(1e9),
      // Like the encoder's, two buffers; here always the other one, so that each frame's buffer has missed
      // the changes read into the one before it.
      acquire: () => {
        const bytes = capturedSize.width * capturedSize.height * 4;
        if (pool[0]?.length !== bytes) pool = [Buffer.alloc(bytes), Buffer.alloc(bytes)];
        pool.reverse();
        return pool[0] as Buffer;
      },
      send: (frame) => frames.push({ pixels: Buffer.from(frame), at: performance.now() }),
    });
    capture.on('cursor', (image) => cursors.push(image));
    painter = await openDisplay(x.display, { authFile: x.authFile });
  });

  afterAll(async () => {
    capture?.close();
    painter?.X.terminate();
    await x?.stop();
  });

  it('sends the picture first, then a change as soon as the display makes it, reading only what changed', async () => {
    // The first frame in each of the two buffers reads the whole picture.
    await frameWhere(() => true, 1);
    // What the new server paints as it starts, and the repeat of each frame, come first.
    await new Promise((r) => setTimeout(r, 300));
    const readBefore = capture.counts.pixelsRead;
    // A red window of 20x10 at (50, 60): its mapping damages just its area.
    const wid = painter.X.AllocID();
    painter.X.CreateWindow(wid, painter.root, 50, 60, 20, 10, 0, 0, 0, 0, { backgroundPixel: 0xff0000 });
    painter.X.MapWindow(wid);
    const frame = await frameWhere((f) => pixel(f, 55, 65)[2] === 255 && pixel(f, 55, 65)[0] === 0);
    expect(pixel(frame, 69, 69)).toEqual([0, 0, 255]);
    expect(pixel(frame, 70, 65)).not.toEqual([0, 0, 255]);
    // Read into one buffer, then again into the other, which missed it: twice the window, nothing more.
    const next = await frameWhere(() => true, afterFrame(frame));
    expect(pixel(next, 55, 65)).toEqual([0, 0, 255]);
    expect(capture.counts.pixelsRead - readBefore).toBeLessThanOrEqual(2 * 20 * 10);
  });

  it('draws the cursor where the pointer is, and sends a frame when only the pointer moved', async () => {
    capture.pointerAt(20, 20);
    const before = await frameWhere(() => true);
    capture.pointerAt(200, 150);
    const after = await frameWhere((f) => !f.equals(before));
    const around = (f: Buffer, cx: number, cy: number) =>
      Array.from({ length: 16 * 16 }, (_, i) =>
        pixel(f, cx - 8 + (i % 16), cy - 8 + Math.floor(i / 16)).join(),
      );
    expect(around(after, 200, 150)).not.toEqual(around(before, 200, 150));
    expect(around(after, 20, 20)).not.toEqual(around(before, 20, 20));
    // The cursor drawn on a buffer does not stay in it: the next frames (one in each buffer) show the
    // picture where it was, as the first frame read it.
    const later: Buffer[] = [];
    for (const [px, py] of [
      [100, 100],
      [120, 100],
    ] as const) {
      const last = later.at(-1) ?? after;
      capture.pointerAt(px, py);
      later.push(await frameWhere((f) => !f.equals(last), afterFrame(last)));
    }
    for (const f of later) expect(around(f, 200, 150)).toEqual(around(frames[0]!.pixels, 200, 150));
  });

  it('leaves the cursor out of the frames while the viewers draw it, putting back what it covered, and in again after', async () => {
    // The pointer's image came as soon as it was known, to a listener added once the capture had started.
    expect(cursors[0]).toMatchObject({ width: expect.any(Number), height: expect.any(Number) });
    const image = await call<{ data: Buffer }>((cb) =>
      painter.X.GetImage(2, painter.root, 180, 130, 40, 40, 0xffffffff, cb),
    );
    // The display's own pixels of a 40x40 square around (200, 150): the server draws no cursor into them.
    const rgb = (pixels: Buffer) => Buffer.from(pixels.filter((_, i) => i % 4 !== 3)).toString('hex');
    const square = (f: Buffer) =>
      rgb(
        Buffer.concat(
          Array.from({ length: 40 }, (_, row) =>
            f.subarray(((130 + row) * W + 180) * 4, ((130 + row) * W + 220) * 4),
          ),
        ),
      );
    const expected = rgb(image.data);
    capture.pointerAt(200, 150);
    const drawn = await frameWhere((f) => square(f) !== expected);
    capture.cursorInFrames(false);
    // Both buffers, each with the cursor drawn on it before, show the picture without it.
    const first = await frameWhere(() => true, afterFrame(drawn));
    const second = await frameWhere(() => true, afterFrame(first));
    expect(square(first)).toBe(expected);
    expect(square(second)).toBe(expected);
    // Moving a pointer that the viewers draw sends no frame.
    await new Promise((r) => setTimeout(r, 300));
    const quiet = frames.length;
    capture.pointerAt(210, 160);
    await new Promise((r) => setTimeout(r, 100));
    expect(frames.length).toBe(quiet);
    capture.cursorInFrames(true);
    const again = await frameWhere(() => true, quiet);
    expect(square(again)).not.toBe(expected);
  });

  it('sends a change after a still moment twice more, soon and a frame later, then waits for the idle refresh', async () => {
    // The frames of the tests before, and their repeats, are over.
    await new Promise((r) => setTimeout(r, 300));
    const wid = painter.X.AllocID();
    painter.X.CreateWindow(wid, painter.root, 10, 200, 30, 20, 0, 0, 0, 0, { backgroundPixel: 0x0000ff });
    painter.X.MapWindow(wid);
    const shown = await frameWhere((f) => pixel(f, 15, 205)[0] === 255);
    await new Promise((r) => setTimeout(r, 600));
    const [first, ...after] = frames.slice(afterFrame(shown) - 1);
    expect(after).toHaveLength(2);
    for (const repeat of after) expect(repeat.pixels.equals(first!.pixels)).toBe(true);
    // 5 ms, then a frame (33 ms at 30 fps) later; a busy machine may add some, never the idle second.
    expect(after[0]!.at - first!.at).toBeLessThan(150);
    expect(after[1]!.at - first!.at).toBeLessThan(300);
  });

  it('sends no more frames than its rate while the picture keeps changing', async () => {
    const wid = painter.X.AllocID();
    painter.X.CreateWindow(wid, painter.root, 0, 150, 20, 20, 0, 0, 0, 0, { backgroundPixel: 0x00ffff });
    painter.X.MapWindow(wid);
    await new Promise((r) => setTimeout(r, 300));
    const start = frames.length;
    const began = performance.now();
    for (let x = 0; performance.now() - began < 1000; x = (x + 3) % 280) {
      painter.X.ConfigureWindow(wid, { x });
      await new Promise((r) => setTimeout(r, 40));
    }
    // A change every 40 ms: at most 30 frames a second, repeats included; a repeat 5 ms after each change would
    // make about 40.
    const sent = frames.slice(start).filter((f) => f.at - began < 1000).length;
    expect(sent).toBeGreaterThan(10);
    expect(sent).toBeLessThanOrEqual(32);
    painter.X.DestroyWindow(wid);
    await new Promise((r) => setTimeout(r, 300));
  });

  it('sends the picture again about every second while nothing changes', async () => {
    const start = frames.length;
    await new Promise((r) => setTimeout(r, IDLE_REFRESH_MS * 2.5));
    const idle = frames.length - start;
    expect(idle).toBeGreaterThanOrEqual(2);
    expect(idle).toBeLessThanOrEqual(3);
  });

  it('reads the whole new area after a resize', async () => {
    Object.assign(capturedSize, { width: 160, height: 120 });
    capture.resize(160, 120, 30);
    const readBefore = capture.counts.pixelsRead;
    await frameWhere(() => true);
    expect(capture.counts.pixelsRead - readBefore).toBe(160 * 120);
  });

  it('reads a narrower area than the display row by row, each pixel at its place', async () => {
    capture.pointerAt(W - 1, H - 1); // outside the captured area: no cursor on these frames
    const wid = painter.X.AllocID();
    painter.X.CreateWindow(wid, painter.root, 150, 100, 40, 40, 0, 0, 0, 0, { backgroundPixel: 0x00ff00 });
    painter.X.MapWindow(wid);
    const frame = await frameWhere((f) => f.length === 160 * 120 * 4 && f[(110 * 160 + 155) * 4 + 1] === 255);
    const image = await call<{ data: Buffer }>((cb) =>
      painter.X.GetImage(2, painter.root, 0, 0, 160, 120, 0xffffffff, cb),
    );
    const rgb = (pixels: Buffer) => Buffer.from(pixels.filter((_, i) => i % 4 !== 3));
    expect(rgb(frame).equals(rgb(image.data))).toBe(true);
  });
});
