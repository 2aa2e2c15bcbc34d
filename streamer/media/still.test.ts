/**
 * The still (still.ts): a frame of either pixel layout scaled down to a small PNG, written whole to the file the
 * service named, only this user's, at most one an interval (on a clock the test moves), and given up in words
 * when it cannot be written.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterEach, describe, expect, it } from 'vitest';
import { scaleDown, STILL_WIDTH, StillKeeper, type StillFrame } from './still.ts';

/** A frame whose left half is red and right half blue, in `layout`. */
function halves(width: number, height: number, layout: StillFrame['layout']): StillFrame {
  const pixels = Buffer.alloc(width * height * 4);
  const [r, b] = layout === 'rgba' ? [0, 2] : [2, 0];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      pixels[i + (x < width / 2 ? r : b)] = 255;
      pixels[i + 3] = 255;
    }
  }
  return { pixels, width, height, layout };
}

/** The RGB of a pixel of RGBA `data`. */
const rgb = (data: Uint8Array, width: number, x: number, y: number) => {
  const i = (y * width + x) * 4;
  return [data[i], data[i + 1], data[i + 2]];
};

describe('scaleDown', () => {
  it.each(['rgba', 'bgr0'] as const)('keeps the colours of a %s frame, at the still width', (layout) => {
    const scaled = scaleDown(halves(960, 540, layout));
    expect([scaled.width, scaled.height]).toEqual([STILL_WIDTH, 180]);
    expect(rgb(scaled.data, scaled.width, 10, 90)).toEqual([255, 0, 0]);
    expect(rgb(scaled.data, scaled.width, 310, 90)).toEqual([0, 0, 255]);
    expect(scaled.data[3]).toBe(255);
  });

  it('averages each block: a one-pixel checkerboard becomes its mean grey', () => {
    const width = 640;
    const height = 360;
    const pixels = Buffer.alloc(width * height * 4);
    for (let i = 0; i < width * height; i++) {
      const on = ((i % width) + Math.floor(i / width)) % 2 === 0;
      pixels.fill(on ? 200 : 100, i * 4, i * 4 + 3);
    }
    const scaled = scaleDown({ pixels, width, height, layout: 'rgba' });
    expect(rgb(scaled.data, scaled.width, 100, 50)).toEqual([150, 150, 150]);
  });

  it('leaves a frame narrower than the still at its size, and an odd height even', () => {
    const scaled = scaleDown(halves(200, 101, 'rgba'));
    expect([scaled.width, scaled.height]).toEqual([200, 102]);
  });
});

/** A keeper of `file` on a clock the test sets, and what it said. */
function keeperAt(file: string) {
  const clock = { now: 0 };
  const lines: string[] = [];
  const keeper = new StillKeeper(
    file,
    (line) => lines.push(line),
    () => clock.now,
    3_000,
  );
  return { keeper, lines, clock };
}

describe('a still keeper', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('writes a PNG only this user may read, then at most one an interval', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'streamgate-still-'));
    dirs.push(dir);
    const file = path.join(dir, 'session.still');
    const { keeper, lines, clock } = keeperAt(file);
    expect(keeper.due).toBe(true);
    await keeper.offer(halves(960, 540, 'bgr0'));
    const first = PNG.sync.read(await readFile(file));
    expect([first.width, first.height]).toEqual([STILL_WIDTH, 180]);
    // Red on the left, blue on the right.
    const [red = 0, , blueOfRed = 0] = rgb(first.data, first.width, 20, 90);
    expect(red).toBeGreaterThan(200);
    expect(blueOfRed).toBeLessThan(60);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(existsSync(`${file}.tmp`)).toBe(false);

    // Within the interval, another picture makes no still.
    clock.now = 2_999;
    expect(keeper.due).toBe(false);
    await keeper.offer({ ...halves(960, 540, 'bgr0'), layout: 'rgba' });
    expect(rgb(PNG.sync.read(await readFile(file)).data, STILL_WIDTH, 20, 90)[0]).toBeGreaterThan(200);

    // Once it has passed, it does: the same bytes read as RGBA put blue on the left.
    clock.now = 3_000;
    expect(keeper.due).toBe(true);
    await keeper.offer({ ...halves(960, 540, 'bgr0'), layout: 'rgba' });
    const [redNow = 0, , blueNow = 0] = rgb(PNG.sync.read(await readFile(file)).data, STILL_WIDTH, 20, 90);
    expect(blueNow).toBeGreaterThan(200);
    expect(redNow).toBeLessThan(60);
    expect(lines).toEqual([]);
  });

  it('gives the still up in words when it cannot be written, and is never due again', async () => {
    const file = path.join(tmpdir(), `streamgate-no-such-dir-${process.pid}`, 'session.still');
    const { keeper, lines, clock } = keeperAt(file);
    await keeper.offer(halves(64, 36, 'rgba'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^the still could not be written, so the session goes on without one: ENOENT/);
    clock.now = 60_000;
    expect(keeper.due).toBe(false);
  });

  it('hands out one buffer for the stills it makes alone, again for the same size', () => {
    const keeper = new StillKeeper('/nowhere/still.jpg', () => undefined);
    const buffer = keeper.buffer(16);
    expect(buffer).toHaveLength(16);
    expect(keeper.buffer(16)).toBe(buffer);
    expect(keeper.buffer(32)).toHaveLength(32);
  });
});
