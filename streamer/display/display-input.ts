/**
 * A viewer's input events as real X input on the display host's connection (x-client.ts): pointer, buttons,
 * wheel, keys and one-finger touch; `resize` is handed on.
 */
import type { InputEvent } from '../../protocol/data-channels.ts';
import { keysymOf } from './keysyms.ts';
import { wheelClicks } from './wheel-clicks.ts';
import type { XClient } from './x-client.ts';

/** Browser buttons (0 left, 1 middle, 2 right, 3 back, 4 forward) as X buttons. */
const BUTTONS = [1, 2, 3, 8, 9];

/**
 * The handler of a controlling viewer's input. `pointerAt` moves the pointer (and, once the capture runs, the
 * cursor in the next frame); it is asked for on each event, since the capture starts after the first viewer
 * may have come.
 */
export function inputHandler(
  client: XClient,
  pointerAt: () => (x: number, y: number) => void,
  resize: (width: number, height: number) => void,
): (event: InputEvent) => void {
  const wheel = { x: 0, y: 0 };
  const scroll = (delta: number, axis: 'x' | 'y') => {
    // At most ten clicks an event, whatever its delta (wheel-clicks.ts).
    const { clicks, pending } = wheelClicks(wheel[axis], delta);
    wheel[axis] = pending;
    const [less, more] = axis === 'y' ? [4, 5] : [6, 7];
    const button = clicks < 0 ? less : more;
    for (let i = 0; i < Math.abs(clicks); i++) {
      client.button(button, true);
      client.button(button, false);
    }
  };
  return (event) => {
    switch (event.type) {
      case 'pointermove':
        return pointerAt()(event.x, event.y);
      case 'pointerdown':
      case 'pointerup':
        pointerAt()(event.x, event.y);
        return client.button(BUTTONS[event.button] ?? 1, event.type === 'pointerdown');
      case 'wheel':
        pointerAt()(event.x, event.y);
        scroll(event.deltaY, 'y');
        return scroll(event.deltaX, 'x');
      case 'keydown':
      case 'keyup': {
        const keysym = keysymOf(event.key, event.code);
        if (keysym !== null) client.key(keysym, event.code, event.type === 'keydown');
        return;
      }
      case 'touchstart':
      case 'touchmove':
      case 'touchend': {
        // One finger is the pointer with the left button held.
        const first = event.touches[0];
        if (first) pointerAt()(first.x, first.y);
        return client.button(1, event.type !== 'touchend');
      }
      case 'resize':
        return resize(event.width, event.height);
      default:
        return;
    }
  };
}
