/**
 * Capture on change: the display's pixels are read when the X server reports that they changed (the DAMAGE
 * extension), not on a clock. A key typed into a terminal is read a fraction of a millisecond after the
 * terminal has drawn it, instead of at the next tick of a 30 fps grabber (17 ms later on average).
 *
 * Only what changed is read, straight into the encoder's frame buffers: the encoder keeps two (one in its
 * pipe, one being filled), and each remembers what changed on the display since it was last filled, so a
 * blinking cursor costs a few hundred bytes, not a frame, and no picture is copied on its way to the
 * encoder. The pixels are read from Xvfb's own framebuffer (a file it maps, x-server.ts), which asks the
 * server for no copy at all; elsewhere they come through shared memory (MIT-SHM, an unlinked /dev/shm file
 * the X server writes and this process reads at the frame's rows) where the connection allows it, which
 * costs a fraction of a large reply on the socket. Frames leave at most `fps` times a second; a change that comes sooner after the last
 * frame waits for its turn. While the encoder's output is over the stream's bandwidth (a terminal scrolling
 * a screen of new text a frame), frames wait until it is back under (`ByteBudget`): fewer frames, each a
 * whole picture, rather than a stream that outgrows the viewer's link. The pointer's image (XFIXES) is drawn
 * onto each frame, since X never puts a cursor into the pixels it hands out (and the server is told not to
 * draw its own into its framebuffer); the pixels under it are kept
 * and put back before the buffer is filled again. While the viewers draw the pointer themselves (from the
 * `cursor` event's image, `cursorInFrames(false)`), it is left out of the frames, unless it is too large to
 * send them. With nothing changing, the same picture is sent again
 * every second, so that a new viewer and the still never wait long for a frame.
 *
 * Its own X connection: a frame's worth of pixels in flight must not hold up the viewer's input, which
 * travels on x-client.ts's connection.
 */
import {
  blit,
  cursorRect,
  cut,
  drawCursor,
  MAX_RECTS,
  toRead,
  type CursorImage,
  type Patch,
  type Rect,
} from './frame-pixels.ts';
import { EventEmitter } from 'node:events';
import type { ByteBudget } from './byte-budget.ts';
import { viewersCanDraw } from './cursor-png.ts';
import { framebufferReader, pixelReader, segmentFiles, type PixelReader } from './pixel-readers.ts';
import { call } from './x-call.ts';
import { openDisplay } from './x-client.ts';
import type { Framebuffer } from './x-server.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- the x11 package is untyped; its objects stay in this file. */
type X = any;

const DAMAGE_DELTA_RECTANGLES = 1;
const CURSOR_NOTIFY_MASK = 1;
/** With nothing changing, the picture is sent again this often. */
export const IDLE_REFRESH_MS = 1000;
/**
 * After a frame that showed a change, the same picture is sent again: a frame's time later, and, when the change
 * came after a still moment (a key typed into a terminal), also this soon. A receiver may hold a frame until the next
 * one arrives: headless Chromium, with the zero playout delay the host asks for, showed a terminal's echo a second
 * late (at the idle refresh) for one key in five, and so do decoders that keep one frame back. The early repeat
 * lets the frame go at once; the later one covers a receiver that took both as one (with a single repeat 10 ms
 * later, one run still had keys a second late). While the picture keeps changing there is no early repeat: it
 * would add frames past the profile's rate.
 */
export const FIRST_REPEAT_MS = 5;

/**
 * The time frames are paced by: `now` in milliseconds, and a call of `run` in `ms`, which `cancel` undoes.
 * Injected so that the pacing can be tested on a clock the test moves; `performanceClock` otherwise.
 */
export interface FrameClock {
  now(): number;
  schedule(run: () => void, ms: number): { cancel(): void };
}

export const performanceClock: FrameClock = {
  now: () => performance.now(),
  schedule(run, ms) {
    const timer = setTimeout(run, ms);
    return { cancel: () => clearTimeout(timer) };
  },
};

/**
 * The display's side of a capture, as `DamageCapture.start` opens it: the X connection with its DAMAGE and
 * XFIXES extensions, the damage object on the root window, and the reader of its pixels.
 */
export interface CaptureDisplay {
  X: X;
  damageExt: X;
  fixes: X;
  damage: number;
  read: PixelReader;
}

export interface CaptureOptions {
  width: number;
  height: number;
  fps: number;
  /** The largest size `resize` may ask for (the display's size). */
  maxWidth: number;
  maxHeight: number;
  /** The stream's bandwidth, spent by the encoder's output. */
  budget: ByteBudget;
  /**
   * A buffer of width*height*4 bytes for the next frame, or null when the encoder is behind (the capture
   * then tries again at the next turn). The encoder hands out the same few buffers again and again; the
   * capture brings whichever it gets up to date.
   */
  acquire: () => Buffer | null;
  /** Whether the encoder rests (nobody watches): then a refused buffer waits for `refresh`, not the next turn. */
  resting?: () => boolean;
  /** One frame, in a buffer from `acquire`: BGRX pixels of the captured area with the cursor on them. */
  send: (frame: Buffer) => void;
  /** The display's own pixels (Xvfb's framebuffer file), read instead of asking the server for copies. */
  framebuffer?: Framebuffer | null;
  /** What frames are paced by (default `performanceClock`). */
  clock?: FrameClock;
}

/** What a capture reports. */
export interface CaptureEvents {
  /** The pixels could not be read, or the connection to the display ended: no frame follows. */
  failed: [reason: string];
  /** The pointer's image changed (and once at the start, as soon as it is known). */
  cursor: [image: CursorImage];
}

/** Capture of the top-left `width`x`height` of a display; `DamageCapture.start` makes one. */
export class DamageCapture extends EventEmitter<CaptureEvents> {
  private width: number;
  private height: number;
  private fps: number;
  private pending: Rect[] = [];
  /**
   * For each buffer the capture has filled: what changed on the display since (read into another buffer
   * meanwhile), and the pixels under the cursor drawn on it. A buffer not in here is read whole.
   */
  private readonly buffers = new Map<Buffer, { stale: Rect[]; underCursor: Patch | null }>();
  /** The picture changed (or the pointer moved) since the last frame that left. */
  private dirty = true;
  /** Repeats still to send of the last frame that showed a change (2, 1 or 0). */
  private repeats = 0;
  private timer: { cancel(): void } | null = null;
  private readonly clock: FrameClock;
  private reading = false;
  private lastFrame = -Infinity;
  private cursor: CursorImage | null = null;
  private pointer = { x: 0, y: 0 };
  /** Whether the cursor is drawn onto the frames (false while the viewers draw it, see cursorInFrames). */
  private cursorDrawn = true;
  private closed = false;
  /** Frames sent, and pixels read from the server, for the bench and the tests. */
  readonly counts = { frames: 0, pixelsRead: 0 };

  private constructor(
    private readonly X: X,
    private readonly damageExt: X,
    private readonly fixes: X,
    private readonly damage: number,
    private readonly read: PixelReader,
    private readonly options: CaptureOptions,
  ) {
    super();
    this.clock = options.clock ?? performanceClock;
    this.width = options.width;
    this.height = options.height;
    this.fps = options.fps;
  }

  /** Connects to `display` with the cookie of `authFile` and sends the first frame as soon as it is read. */
  static async start(display: string, authFile: string, options: CaptureOptions): Promise<DamageCapture> {
    const files = segmentFiles();
    const { X, root } = await openDisplay(display, { authFile, shm: files.provider });
    const damageExt: X = await call((cb) => X.require('damage', cb));
    const fixes: X = await call((cb) => X.require('fixes', cb));
    const damage: number = X.AllocID();
    damageExt.Create(damage, root, DAMAGE_DELTA_RECTANGLES);
    fixes.SelectCursorInput(root, CURSOR_NOTIFY_MASK);
    const read = options.framebuffer
      ? framebufferReader(X, options.framebuffer)
      : await pixelReader(X, root, options.maxWidth * options.maxHeight * 4, files);
    // The cursor is drawn onto each frame from its image; the server must not draw it into its pixels.
    fixes.HideCursor(root);
    return DamageCapture.over({ X, damageExt, fixes, damage, read }, options);
  }

  /** Captures from a display `start` opened (or a test's stand-in for one), from its events on. */
  static over(display: CaptureDisplay, options: CaptureOptions): DamageCapture {
    const { X, damageExt, fixes, damage, read } = display;
    const capture = new DamageCapture(X, damageExt, fixes, damage, read, options);
    X.on('event', (event: X) => capture.onEvent(event));
    X.on('end', () => capture.fail('the connection to the display ended'));
    capture.readCursor();
    capture.schedule();
    return capture;
  }

  /** Captures `width`x`height` from now on: the whole area is read again for the next frame. */
  resize(width: number, height: number, fps: number): void {
    this.width = width;
    this.height = height;
    this.fps = fps;
    this.buffers.clear();
    this.pending = [];
    this.lastFrame = -Infinity;
    this.schedule();
  }

  /** The picture at the next turn, whether or not it changed: an encoder that woke from its rest needs one. */
  refresh(): void {
    this.dirty = true;
    this.schedule();
  }

  /** The pointer moved (the viewer's input): the cursor is drawn there in the next frame. */
  pointerAt(x: number, y: number): void {
    if (x === this.pointer.x && y === this.pointer.y) return;
    this.pointer = { x, y };
    // A pointer the viewers draw themselves changes nothing in the frames.
    if (!this.drawnCursor()) return;
    this.dirty = true;
    this.schedule();
  }

  /** The cursor to draw onto frames, or null. */
  private drawnCursor(): CursorImage | null {
    const { cursor } = this;
    return cursor && (this.cursorDrawn || !viewersCanDraw(cursor)) ? cursor : null;
  }

  /**
   * Whether frames show the pointer (true at first): false while every viewer that moves it draws it itself.
   * A cursor too large to send viewers is drawn anyway.
   */
  cursorInFrames(on: boolean): void {
    if (on === this.cursorDrawn) return;
    this.cursorDrawn = on;
    // Each buffer puts back the pixels under the cursor last drawn on it before it is filled again.
    this.dirty = true;
    this.schedule();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.timer?.cancel();
    this.timer = null;
    try {
      this.X.terminate();
    } catch {
      // the display is gone already
    }
  }

  /** Stops for good and says why, unless it was closed on purpose (then the display may go as it likes). */
  private fail(reason: string): void {
    if (this.closed) return;
    this.close();
    this.emit('failed', reason);
  }

  private onEvent(event: X): void {
    if (event.name === 'DamageNotify') {
      const { x, y, w, h } = event.area as { x: number; y: number; w: number; h: number };
      this.pending.push({ x, y, width: w, height: h });
      this.schedule();
    } else if (event.name === 'CursorNotify') {
      this.readCursor();
    }
  }

  private readCursor(): void {
    this.fixes.GetCursorImage((err: Error | null, image: X) => {
      if (err || this.closed) return;
      this.cursor = {
        width: image.width,
        height: image.height,
        xhot: image.xhot,
        yhot: image.yhot,
        pixels: image.cursorImage,
      };
      this.pointer = { x: image.x, y: image.y };
      this.dirty = true;
      // A reply from the server: always after `start` has resolved and its caller has listened.
      this.emit('cursor', this.cursor);
      this.schedule();
    });
  }

  /** The next frame at once if its turn has come, else when it comes; the idle refresh otherwise. */
  private schedule(): void {
    if (this.closed || this.reading) return;
    this.timer?.cancel();
    const now = this.clock.now();
    const changed = this.dirty || this.pending.length > 0;
    const frameMs = 1000 / this.fps;
    const quiet = this.repeats === 2 ? FIRST_REPEAT_MS : this.repeats === 1 ? frameMs : IDLE_REFRESH_MS;
    const turn = this.lastFrame + (changed ? frameMs : quiet);
    const due = Math.max(turn, now + this.options.budget.waitMs(now));
    this.timer = this.clock.schedule(
      () => void this.next().catch((error: unknown) => this.fail(String(error))),
      Math.max(0, due - now),
    );
  }

  /** Brings a buffer of the encoder up to date (what changed since it was last filled), then sends it. */
  private async next(): Promise<void> {
    this.timer = null;
    if (this.closed) return;
    const { width, height } = this;
    const frame = this.options.acquire();
    if (!frame) {
      // The encoder is behind: the changes wait for the next turn. One at rest waits for `refresh` (a change
      // schedules a turn too, but the damage not taken meanwhile stops reporting once it covers the screen).
      this.lastFrame = this.clock.now();
      if (!this.options.resting?.()) this.schedule();
      return;
    }
    this.reading = true;
    const known = this.buffers.get(frame);
    if (known?.underCursor) blit(frame, width, known.underCursor.rect, known.underCursor.pixels);
    const changed = this.pending;
    this.pending = [];
    const rects = toRead(
      known ? [...known.stale, ...changed] : [{ x: 0, y: 0, width, height }],
      width,
      height,
    );
    try {
      // Forget the damage before reading: what changes while the pixels travel is reported again. (DAMAGE
      // reports only what adds to its region, so a region never emptied would report nothing.)
      this.damageExt.Subtract(this.damage, 0, 0);
      if (rects.length > 0) await this.read(rects, frame, width);
    } catch (error) {
      this.reading = false;
      return this.fail(error instanceof Error ? error.message : String(error));
    }
    this.reading = false;
    // A resize while the pixels travelled: they belong to the old picture, which is read again anyway.
    if (this.closed || width !== this.width || height !== this.height) return void this.schedule();
    this.counts.pixelsRead += rects.reduce((sum, r) => sum + r.width * r.height, 0);
    for (const [other, state] of this.buffers) {
      if (other === frame) continue;
      state.stale.push(...changed);
      if (state.stale.length > MAX_RECTS) state.stale = toRead(state.stale, width, height);
    }
    const { pointer } = this;
    const cursor = this.drawnCursor();
    const under = cursor && cursorRect(cursor, pointer.x, pointer.y, width, height);
    this.buffers.set(frame, {
      stale: [],
      underCursor: under ? { rect: under, pixels: cut(frame, width, under) } : null,
    });
    if (cursor) drawCursor(frame, width, height, cursor, pointer.x, pointer.y);
    this.options.send(frame);
    this.counts.frames++;
    // A frame that showed something new is followed by repeats (two after a still moment, a key typed say; one
    // while the picture keeps changing, which the next change usually makes needless); a repeat by the next.
    const isolated = this.clock.now() - this.lastFrame > (2 * 1000) / this.fps;
    const showedChange = this.dirty || changed.length > 0;
    this.repeats = showedChange ? (isolated ? 2 : 1) : Math.max(0, this.repeats - 1);
    this.dirty = false;
    this.lastFrame = this.clock.now();
    this.schedule();
  }
}
