import { afterEach, describe, expect, it } from 'vitest';
import { InputController, type KeyboardCapture } from './input-controller';
import type { InputEvent } from './input-events';

// A 1280x720 element showing a 640x360 stream: scale 2, no bars.
function setup(keepKey?: (e: KeyboardEvent) => boolean) {
  const element = document.createElement('div');
  element.tabIndex = 0;
  document.body.append(element);
  element.getBoundingClientRect = () => ({ left: 100, top: 50, width: 1280, height: 720 }) as DOMRect;
  const sent: InputEvent[] = [];
  const captures: KeyboardCapture[] = [];
  const controller = new InputController({
    element,
    streamSize: () => ({ width: 640, height: 360 }),
    send: (e) => sent.push(e),
    keepKey,
    onKeyboard: (c) => captures.push(c),
  });
  return { element, sent, controller, captures };
}

/** Dispatches a key the way a browser does, and says whether the page's default action was prevented. */
function press(element: HTMLElement, type: 'keydown' | 'keyup', key: string, code = key): boolean {
  const event = new KeyboardEvent(type, { key, code, bubbles: true, cancelable: true });
  element.dispatchEvent(event);
  return event.defaultPrevented;
}

function pointer(
  type: string,
  init: { clientX: number; clientY: number; buttons?: number; button?: number },
) {
  // jsdom lacks PointerEvent; a MouseEvent of the same type carries every field the controller reads.
  return new MouseEvent(type, { bubbles: true, cancelable: true, ...init });
}

afterEach(() => {
  document.body.innerHTML = '';
});

describe('InputController', () => {
  it('sends pointer moves and buttons in stream pixels', () => {
    const { element, sent } = setup();
    element.dispatchEvent(pointer('pointermove', { clientX: 100 + 400, clientY: 50 + 200, buttons: 0 }));
    element.dispatchEvent(pointer('pointerdown', { clientX: 100 + 400, clientY: 50 + 200, button: 0 }));
    element.dispatchEvent(pointer('pointerup', { clientX: 100 + 402, clientY: 50 + 202, button: 0 }));
    expect(sent).toEqual([
      { type: 'pointermove', x: 200, y: 100, buttons: 0 },
      { type: 'pointerdown', x: 200, y: 100, button: 0 },
      { type: 'pointerup', x: 201, y: 101, button: 0 },
    ]);
  });

  it('drops moves outside the picture but clamps a release there', () => {
    const { element, sent } = setup();
    element.dispatchEvent(pointer('pointermove', { clientX: 10, clientY: 10 }));
    element.dispatchEvent(pointer('pointerup', { clientX: 10, clientY: 10, button: 2 }));
    expect(sent).toEqual([{ type: 'pointerup', x: 0, y: 0, button: 2 }]);
  });

  it('sends the wheel with its deltas and stops the page from scrolling', () => {
    const { element, sent } = setup();
    const wheel = new WheelEvent('wheel', {
      clientX: 100,
      clientY: 50,
      deltaX: 0,
      deltaY: 120,
      cancelable: true,
    });
    element.dispatchEvent(wheel);
    expect(sent).toEqual([{ type: 'wheel', x: 0, y: 0, deltaX: 0, deltaY: 120 }]);
    expect(wheel.defaultPrevented).toBe(true);
  });

  it('forwards keys, Tab included, while focused, except those the page keeps', () => {
    const { element, sent, captures } = setup((e) => e.key === 'F1');
    element.focus();
    expect(captures).toEqual(['captured']);
    expect(press(element, 'keydown', 'a', 'KeyA')).toBe(true);
    expect(press(element, 'keydown', 'F1')).toBe(false);
    expect(press(element, 'keydown', 'Tab')).toBe(true);
    press(element, 'keyup', 'a', 'KeyA');
    press(element, 'keyup', 'F1');
    expect(sent).toEqual([
      { type: 'keydown', key: 'a', code: 'KeyA' },
      { type: 'keydown', key: 'Tab', code: 'Tab' },
      { type: 'keyup', key: 'a', code: 'KeyA' },
    ]);
  });

  it('releases the keyboard on Escape so that Tab moves on, and takes it back on Enter', () => {
    const { element, sent, captures } = setup();
    element.focus();
    press(element, 'keydown', 'w', 'KeyW');
    // Escape itself never reaches the application, and a key held through it is let go.
    expect(press(element, 'keydown', 'Escape')).toBe(false);
    expect(captures).toEqual(['captured', 'released']);
    expect(press(element, 'keydown', 'Tab')).toBe(false);
    press(element, 'keyup', 'w', 'KeyW');
    expect(press(element, 'keydown', 'Enter')).toBe(true);
    expect(captures.at(-1)).toBe('captured');
    press(element, 'keydown', 'b', 'KeyB');
    expect(sent).toEqual([
      { type: 'keydown', key: 'w', code: 'KeyW' },
      { type: 'keyup', key: 'w', code: 'KeyW' },
      { type: 'keydown', key: 'b', code: 'KeyB' },
    ]);
  });

  it('sends no keys without focus, and captures again on focus and on a click', () => {
    const { element, sent, captures } = setup();
    press(element, 'keydown', 'a', 'KeyA');
    expect(sent).toEqual([]);
    element.focus();
    press(element, 'keydown', 'Escape');
    element.blur();
    expect(captures).toEqual(['captured', 'released', 'idle']);
    element.focus();
    press(element, 'keydown', 'Escape');
    element.dispatchEvent(pointer('pointerdown', { clientX: 100, clientY: 50, button: 0 }));
    expect(captures.slice(-2)).toEqual(['released', 'captured']);
  });

  it('maps every touch point, and the lifted ones on touchend', () => {
    const { element, sent } = setup();
    const touch = (type: string, list: 'touches' | 'changedTouches', points: [number, number, number][]) => {
      const event = new Event(type, { cancelable: true });
      const touches = points.map(([identifier, clientX, clientY]) => ({ identifier, clientX, clientY }));
      Object.defineProperty(event, 'touches', { value: list === 'touches' ? touches : [] });
      Object.defineProperty(event, 'changedTouches', { value: touches });
      element.dispatchEvent(event);
    };
    touch('touchstart', 'touches', [
      [1, 100, 50],
      [2, 1100, 650],
    ]);
    touch('touchend', 'changedTouches', [[2, 1100, 650]]);
    expect(sent).toEqual([
      {
        type: 'touchstart',
        touches: [
          { id: 1, x: 0, y: 0 },
          { id: 2, x: 500, y: 300 },
        ],
      },
      { type: 'touchend', touches: [{ id: 2, x: 500, y: 300 }] },
    ]);
  });

  it('stops listening after detach, and says the keyboard is no longer captured', () => {
    const { element, sent, controller, captures } = setup();
    element.focus();
    controller.detach();
    element.dispatchEvent(pointer('pointermove', { clientX: 500, clientY: 250 }));
    press(element, 'keydown', 'a', 'KeyA');
    expect(sent).toEqual([]);
    expect(captures).toEqual(['captured', 'idle']);
  });

  it('captures at once when attached to an element that has focus already', () => {
    const element = document.createElement('div');
    element.tabIndex = 0;
    document.body.append(element);
    element.focus();
    const captures: KeyboardCapture[] = [];
    new InputController({
      element,
      streamSize: () => ({ width: 640, height: 360 }),
      send: () => undefined,
      onKeyboard: (c) => captures.push(c),
    });
    expect(captures).toEqual(['captured']);
  });
});
