/** Asks the application for a stream that fits the element, within limits, once the element stops resizing. */
import type { ResizeOptions } from '../player-types';

/** Watches an element's size and reports the stream size it wants (even numbers, as encoders prefer). */
export class StreamResizer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly observer: ResizeObserver | undefined;
  private last = '';

  constructor(
    private readonly element: HTMLElement,
    private options: ResizeOptions,
    private readonly send: (width: number, height: number) => boolean,
  ) {
    if (typeof ResizeObserver === 'undefined') return;
    this.observer = new ResizeObserver(() => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.sendNow(), options.debounceMs ?? 300);
    });
    this.observer.observe(element);
  }

  /** Sends the wanted size now, unless it was already sent. */
  sendNow(): void {
    const size = wantedSize(
      this.element.clientWidth,
      this.element.clientHeight,
      globalThis.devicePixelRatio ?? 1,
      this.options,
    );
    if (!size) return;
    const key = `${size.width}x${size.height}`;
    if (key === this.last) return;
    // Remembered only once sent, so that a size asked for before the channel opened is asked again.
    if (this.send(size.width, size.height)) this.last = key;
  }

  /** New limits (a person chose a smaller picture, say): the size they give is asked for at once. */
  setOptions(options: ResizeOptions): void {
    this.options = options;
    this.sendNow();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.observer?.disconnect();
  }
}

/** The stream size for an element of `width`x`height` CSS pixels; undefined for an element not laid out. */
export function wantedSize(width: number, height: number, pixelRatio: number, options: ResizeOptions) {
  if (width <= 0 || height <= 0) return undefined;
  const maxW = options.maxWidth ?? 1920;
  const maxH = options.maxHeight ?? 1080;
  const minW = options.minWidth ?? 320;
  const minH = options.minHeight ?? 180;
  let w = width * pixelRatio;
  let h = height * pixelRatio;
  // Scale down as a whole, keeping the element's aspect, before clamping each side.
  const down = Math.min(1, maxW / w, maxH / h);
  w *= down;
  h *= down;
  const even = (n: number, min: number, max: number) => Math.max(min, Math.min(max, 2 * Math.round(n / 2)));
  return { width: even(w, minW, maxW), height: even(h, minH, maxH) };
}
