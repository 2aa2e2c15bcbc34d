import { afterEach, describe, expect, it } from 'vitest';
import { InputController } from './input-controller';
import type { InputEvent } from './input-events';

// A 1280x720 element showing a 640x360 stream: scale 2, no bars.
function setup(keepKey?: (e: KeyboardEvent) => boolean) {
  const element = document.createElement('div');
  element.tabIndex = 0;
  document.body.append(element);
  element.getBoundingClientRect = () => ({ left: 100, top: 50, width: 1280, height: 720 }) as DOMRect;
  const sent: InputEvent[] = [];
  const controller = new InputController({
    element,
    streamSize: () => ({ width: 640, height: 360 }),
    send: (e) => sent.push(e),
    keepKey,
  });
  return { element, sent, controller };
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

  it('forwards keys except those the page keeps', () => {
    const { element, sent } = setup((e) => e.key === 'Escape');
    element.dispatchEvent(new KeyboardEvent('keydown', { key: 'a', code: 'KeyA', bubbles: true }));
    element.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', code: 'Escape', bubbles: true }));
    element.dispatchEvent(new KeyboardEvent('keyup', { key: 'a', code: 'KeyA', bubbles: true }));
    expect(sent).toEqual([
      { type: 'keydown', key: 'a', code: 'KeyA' },
      { type: 'keyup', key: 'a', code: 'KeyA' },
    ]);
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

  it('stops listening after detach', () => {
    const { element, sent, controller } = setup();
    controller.detach();
    element.dispatchEvent(pointer('pointermove', { clientX: 500, clientY: 250 }));
    expect(sent).toEqual([]);
  });
});
