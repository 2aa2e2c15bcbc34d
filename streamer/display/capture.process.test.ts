/**
 * The capture against a real X display (Xvfb): the pixels it reads, the cursor it draws and leaves out, and a
 * resize, read from shared memory and from the server's framebuffer file. How frames are paced in time is
 * capture.test.ts's, on a clock the test moves. The waits here are for a real server's frames (process test).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ByteBudget } from './byte-budget.ts';
import { DamageCapture } from './capture.ts';
import { call } from './x-call.ts';
import { openDisplay } from './x-client.ts';
import { startXServer, type XServer } from './x-server.ts';

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
    const shown = frames.length;
    capture.cursorInFrames(true);
    const again = await frameWhere(() => true, shown);
    expect(square(again)).not.toBe(expected);
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
