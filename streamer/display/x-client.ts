/**
 * The display host's one long-lived connection to its X display (the `x11` package, pure JavaScript):
 * input through XTEST, the program's top-level windows fitted to the stream, and the text clipboard
 * both ways. One connection for everything: no process per event.
 */
import { EventEmitter, once } from 'node:events';
import { createConnection, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import x11 from 'x11';
import fdpass from 'x11/lib/fdpass.js';
import { Clipboard } from './clipboard.ts';
import { isModifier } from './keysyms.ts';
import { call } from './x-call.ts';
import { cookieOf } from './xauthority.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- the x11 package is untyped; its objects stay in this file. */
type X = any;

const XTEST = { KeyPress: 2, KeyRelease: 3, ButtonPress: 4, ButtonRelease: 5, MotionNotify: 6 };
const SHIFT_L = 0xffe1;
const SUBSTRUCTURE_NOTIFY = 0x00080000;

/** What the connection reports. */
export interface XClientEvents {
  /** A top-level window of the program was mapped (the first one means the program is up). */
  window: [number];
}

/**
 * A new connection to `display`, let in by the cookie of `authFile` (without one, the x11 package looks for
 * XAUTHORITY or ~/.Xauthority): the x11 package's display object (`min_keycode`, `screen`...), its client,
 * and the root window. `shm` replaces the package's MIT-SHM segment provider (see capture.ts).
 */
export async function openDisplay(
  display: string,
  options: { authFile?: string; shm?: object } = {},
): Promise<{ conn: X; X: X; root: number }> {
  const { authFile, shm } = options;
  // A sandboxed X server is reached by its socket's path (x-server.ts), which the package takes as a stream.
  const stream = display.startsWith('/') ? await socketTo(display) : undefined;
  const conn: X = await call((cb) => {
    const client = x11.createClient(
      {
        display: stream ? ':0' : display,
        ...(stream ? { stream } : {}),
        ...(authFile ? { auth: cookieOf(authFile) } : {}),
        ...(shm ? { shm } : {}),
      },
      cb,
    );
    client.on('error', () => undefined);
  });
  return { conn, X: conn.client, root: conn.screen[0].root as number };
}

/**
 * A connected stream to the X server's socket at `file`: one that can pass descriptors (the package's own, for
 * MIT-SHM, capture.ts) where the runtime allows, else a plain one.
 */
async function socketTo(file: string): Promise<Duplex> {
  const stream = (fdpass.connect(file, {}) as Socket | null) ?? createConnection(file);
  await once(stream, 'connect');
  return stream;
}

/** A connection to one display; `XClient.connect` makes it. */
export class XClient extends EventEmitter<XClientEvents> {
  private size = { width: 0, height: 0 };
  private readonly windows = new Set<number>();
  /** keysym -> keycode and whether it needs Shift (level 1). */
  private readonly keys = new Map<number, { keycode: number; shifted: boolean }>();
  private spare: number[] = [];
  private nextSpare = 0;
  /** Keycodes held down, by the viewer's `code`, so that keyup releases what keydown pressed. */
  private readonly held = new Map<string, number>();
  private readonly buttons = new Set<number>();
  private shiftDown = false;
  private closed = false;

  private constructor(
    private readonly X: X,
    private readonly root: number,
    private readonly xtest: X,
    /** The display's clipboard, both ways (clipboard.ts). */
    readonly clipboard: Clipboard,
    private readonly keysymsPerKeycode: number,
  ) {
    super();
  }

  /** Connects to `display` with the cookie of `authFile` (`openDisplay`) and watches its top-level windows. */
  static async connect(display: string, authFile?: string): Promise<XClient> {
    const { conn, X, root } = await openDisplay(display, { authFile });
    const xtest: X = await call((cb) => X.require('xtest', cb));
    const clipboard = await Clipboard.start(X, root);
    X.ChangeWindowAttributes(root, { eventMask: SUBSTRUCTURE_NOTIFY });
    const min: number = conn.min_keycode;
    const max: number = conn.max_keycode;
    const rows: number[][] = await call((cb) => X.GetKeyboardMapping(min, max - min + 1, cb));
    const client = new XClient(X, root, xtest, clipboard, rows[0]?.length ?? 2);
    client.learnKeys(min, rows);
    X.on('event', (event: X) => client.onEvent(event));
    return client;
  }

  /** The size the program's windows fill (the captured part of the screen). */
  fit(width: number, height: number): void {
    this.size = { width, height };
    for (const wid of this.windows) this.X.ConfigureWindow(wid, { x: 0, y: 0, width, height });
  }

  /** Moves the pointer to (`x`, `y`), held inside the stream; returns where it went. */
  pointer(x: number, y: number): { x: number; y: number } {
    const cx = Math.max(0, Math.min(Math.round(x), this.size.width - 1));
    const cy = Math.max(0, Math.min(Math.round(y), this.size.height - 1));
    this.xtest.FakeInput(XTEST.MotionNotify, 0, 0, this.root, cx, cy);
    return { x: cx, y: cy };
  }

  /** X button numbers: 1 left, 2 middle, 3 right, 4-7 wheel. */
  button(button: number, down: boolean): void {
    if (down === this.buttons.has(button)) return;
    if (down) this.buttons.add(button);
    else this.buttons.delete(button);
    this.xtest.FakeInput(down ? XTEST.ButtonPress : XTEST.ButtonRelease, button, 0, this.root, 0, 0);
  }

  /** Presses or releases the key of `keysym`; `code` ties a release to its press. */
  key(keysym: number, code: string, down: boolean): void {
    const id = code || `keysym-${keysym}`;
    if (!down) {
      const keycode = this.held.get(id);
      if (keycode === undefined) return;
      this.held.delete(id);
      if (keysym === SHIFT_L || keysym === SHIFT_L + 1) this.shiftDown = false;
      this.xtest.FakeInput(XTEST.KeyRelease, keycode, 0, this.root, 0, 0);
      return;
    }
    if (this.held.has(id)) return; // auto-repeat of a key already down: X repeats it itself
    const mapped = this.keys.get(keysym) ?? this.bindSpare(keysym);
    if (!mapped) return;
    if (keysym === SHIFT_L || keysym === SHIFT_L + 1) this.shiftDown = true;
    // A character that needs Shift gets it for its press only, when the viewer does not hold Shift.
    const addShift = mapped.shifted && !this.shiftDown && !isModifier(keysym);
    const shift = this.keys.get(SHIFT_L);
    if (addShift && shift) this.xtest.FakeInput(XTEST.KeyPress, shift.keycode, 0, this.root, 0, 0);
    this.xtest.FakeInput(XTEST.KeyPress, mapped.keycode, 0, this.root, 0, 0);
    if (addShift && shift) this.xtest.FakeInput(XTEST.KeyRelease, shift.keycode, 0, this.root, 0, 0);
    this.held.set(id, mapped.keycode);
  }

  /** Releases every key and button still down (the viewer who held them is gone). */
  releaseAll(): void {
    for (const code of [...this.held.keys()]) this.key(0, code, false);
    for (const button of [...this.buttons]) this.button(button, false);
    this.shiftDown = false;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.clipboard.close();
    this.releaseAll();
    try {
      this.X.terminate();
    } catch {
      // the display is gone already
    }
  }

  private learnKeys(min: number, rows: number[][]): void {
    rows.forEach((row, i) => {
      const keycode = min + i;
      if (row.every((keysym) => keysym === 0)) {
        this.spare.push(keycode);
        return;
      }
      row.slice(0, 2).forEach((keysym, level) => {
        if (keysym !== 0 && !this.keys.has(keysym)) this.keys.set(keysym, { keycode, shifted: level === 1 });
      });
    });
  }

  /** Gives a keysym the keyboard does not have a spare keycode (as xdotool does), in turn. */
  private bindSpare(keysym: number): { keycode: number; shifted: boolean } | null {
    if (this.spare.length === 0) return null;
    const keycode = this.spare[this.nextSpare++ % this.spare.length] as number;
    for (const [sym, mapped] of this.keys) if (mapped.keycode === keycode) this.keys.delete(sym);
    const row = new Array<number>(this.keysymsPerKeycode).fill(0);
    row[0] = keysym;
    if (row.length > 1) row[1] = keysym;
    this.X.ChangeKeyboardMapping(keycode, this.keysymsPerKeycode, row);
    const mapped = { keycode, shifted: false };
    this.keys.set(keysym, mapped);
    return mapped;
  }

  private onEvent(event: X): void {
    switch (event.name) {
      case 'MapNotify':
        if (event.event !== this.root || event.overrideRedirect) return;
        if (!this.windows.has(event.wid)) {
          this.windows.add(event.wid);
          if (this.size.width > 0) this.X.ConfigureWindow(event.wid, { x: 0, y: 0, ...this.size });
          // No window manager: the newest window gets the keyboard.
          this.X.SetInputFocus(event.wid, 1);
          this.emit('window', event.wid);
        }
        return;
      case 'ConfigureNotify': {
        // Without a window manager nothing holds a program to the stream's size; we do, as one would.
        const wid: number = event.wid1;
        const off =
          event.x !== 0 ||
          event.y !== 0 ||
          event.width !== this.size.width ||
          event.height !== this.size.height;
        if (this.windows.has(wid) && this.size.width > 0 && off) {
          this.X.ConfigureWindow(wid, { x: 0, y: 0, ...this.size });
        }
        return;
      }
      case 'UnmapNotify':
      case 'DestroyNotify':
        this.windows.delete(event.wid);
        return;
      default:
        return;
    }
  }
}
