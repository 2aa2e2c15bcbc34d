/**
 * Turns DOM pointer, wheel, keyboard and touch events on the video element into input events in stream pixels.
 * Keys that the page keeps for itself (its shortcuts) are filtered by `keepKey`.
 *
 * The keyboard is captured while the element has focus, Tab included, so that the application gets every
 * key. Escape releases it (then Tab and Shift+Tab move on as anywhere else); Enter, a click or focusing
 * the element again captures it again. Without that way out, a keyboard user would be trapped.
 */
import { containedRect, toStreamPoint, type StreamSize } from './coordinate-mapping';
import type { InputEvent, TouchPoint } from './input-events';

/** Where the keyboard goes: `captured` to the application, `released` to the page, `idle` without focus. */
export type KeyboardCapture = 'captured' | 'released' | 'idle';

/** Settings of the input controller. */
export interface InputControllerOptions {
  /** The element that receives events and shows the picture with object-fit: contain. */
  element: HTMLElement;
  /** The stream's current size; `{0, 0}` before the first frame. */
  streamSize: () => StreamSize;
  /** Sends one event to the application. */
  send: (event: InputEvent) => void;
  /** True for key events the page handles itself; those are not forwarded. */
  keepKey?: (event: KeyboardEvent) => boolean;
  /** Called when the keyboard is captured, released or loses focus, and with `idle` on `detach()`. */
  onKeyboard?: (capture: KeyboardCapture) => void;
}

/** Listens on an element until `detach()`. */
export class InputController {
  private readonly detachers: (() => void)[] = [];
  // Under pointer lock clientX/Y stop moving; the position is then tracked from movementX/Y.
  private locked: { x: number; y: number } | undefined;
  private capture: KeyboardCapture = 'idle';
  /**
   * Keys sent down, code to key: only their release is sent, and leaving capture releases them all, so that
   * the application sees neither a stray keyup nor a key held forever.
   */
  private readonly down = new Map<string, string>();

  constructor(private readonly options: InputControllerOptions) {
    const { element } = options;
    this.on(element, 'pointermove', (e) => this.pointer(e, 'pointermove'));
    this.on(element, 'pointerdown', (e) => {
      element.focus({ preventScroll: true });
      this.setCapture('captured');
      this.pointer(e, 'pointerdown');
    });
    this.on(element, 'focus', () => this.setCapture('captured'));
    this.on(element, 'blur', () => this.setCapture('idle'));
    this.on(element, 'pointerup', (e) => this.pointer(e, 'pointerup'));
    this.on(element, 'wheel', (e) => this.wheel(e), { passive: false });
    this.on(element, 'contextmenu', (e) => e.preventDefault());
    this.on(element, 'keydown', (e) => this.key(e, 'keydown'));
    this.on(element, 'keyup', (e) => this.key(e, 'keyup'));
    for (const type of ['touchstart', 'touchmove', 'touchend', 'touchcancel'] as const) {
      this.on(element, type, (e) => this.touch(e), { passive: false });
    }
    const onLockChange = () => {
      // Under pointer lock the position starts at the picture's centre and follows movementX/Y.
      const size = options.streamSize();
      this.locked =
        document.pointerLockElement === element
          ? { x: Math.floor(size.width / 2), y: Math.floor(size.height / 2) }
          : undefined;
    };
    document.addEventListener('pointerlockchange', onLockChange);
    this.detachers.push(() => document.removeEventListener('pointerlockchange', onLockChange));
    // Attached (or attached again after a reconnect) while the element already has focus.
    if (document.activeElement === element) this.setCapture('captured');
  }

  /** Removes every listener. */
  detach(): void {
    for (const detach of this.detachers.splice(0)) detach();
    this.setCapture('idle');
  }

  private setCapture(capture: KeyboardCapture) {
    if (capture === this.capture) return;
    this.capture = capture;
    if (capture !== 'captured') {
      for (const [code, key] of this.down) this.options.send({ type: 'keyup', key, code });
      this.down.clear();
    }
    this.options.onKeyboard?.(capture);
  }

  private on<K extends keyof HTMLElementEventMap>(
    element: HTMLElement,
    type: K,
    handler: (event: HTMLElementEventMap[K]) => void,
    options?: AddEventListenerOptions,
  ): void {
    element.addEventListener(type, handler, options);
    this.detachers.push(() => element.removeEventListener(type, handler, options));
  }

  private point(clientX: number, clientY: number, clamp: boolean) {
    const rect = this.options.element.getBoundingClientRect();
    return toStreamPoint(clientX, clientY, rect, this.options.streamSize(), clamp);
  }

  private pointer(e: PointerEvent, type: 'pointermove' | 'pointerdown' | 'pointerup') {
    if (e.pointerType === 'touch') return; // touch events carry those
    let p: { x: number; y: number } | undefined;
    if (this.locked) {
      const size = this.options.streamSize();
      // movementX/Y are CSS pixels; the picture may be scaled on the page.
      const { scale } = containedRect(this.options.element.getBoundingClientRect(), size);
      const k = scale > 0 ? 1 / scale : 1;
      this.locked = {
        x: Math.min(size.width - 1, Math.max(0, Math.round(this.locked.x + e.movementX * k))),
        y: Math.min(size.height - 1, Math.max(0, Math.round(this.locked.y + e.movementY * k))),
      };
      p = this.locked;
    } else {
      // A button released outside the picture still has to reach the application.
      p = this.point(e.clientX, e.clientY, type === 'pointerup' || e.buttons !== 0);
    }
    if (!p) return;
    if (type === 'pointermove') this.options.send({ type, x: p.x, y: p.y, buttons: e.buttons });
    else {
      e.preventDefault();
      this.options.send({ type, x: p.x, y: p.y, button: e.button });
    }
  }

  private wheel(e: WheelEvent) {
    const p = this.point(e.clientX, e.clientY, false);
    if (!p) return;
    e.preventDefault();
    this.options.send({ type: 'wheel', x: p.x, y: p.y, deltaX: e.deltaX, deltaY: e.deltaY });
  }

  private key(e: KeyboardEvent, type: 'keydown' | 'keyup') {
    if (type === 'keyup') {
      if (!this.down.delete(e.code)) return;
      e.preventDefault();
      this.options.send({ type, key: e.key, code: e.code });
      return;
    }
    if (this.options.keepKey?.(e)) return;
    if (this.capture !== 'captured') {
      if (e.key !== 'Enter') return; // the page's own: Tab moves focus on
      e.preventDefault();
      this.setCapture('captured');
      return;
    }
    // Not prevented: the browser also leaves fullscreen or pointer lock on Escape.
    if (e.key === 'Escape') return this.setCapture('released');
    e.preventDefault();
    this.down.set(e.code, e.key);
    this.options.send({ type, key: e.key, code: e.code });
  }

  private touch(e: TouchEvent) {
    const touches: TouchPoint[] = [];
    const list = e.type === 'touchend' || e.type === 'touchcancel' ? e.changedTouches : e.touches;
    for (const t of Array.from(list)) {
      const p = this.point(t.clientX, t.clientY, true);
      if (p) touches.push({ id: t.identifier, ...p });
    }
    e.preventDefault();
    const type = e.type === 'touchcancel' ? 'touchend' : (e.type as 'touchstart' | 'touchmove' | 'touchend');
    this.options.send({ type, touches });
  }
}
