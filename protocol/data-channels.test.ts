import { describe, expect, it } from 'vitest';
import {
  INPUT_BOUNDS,
  KEEP_ALIVE_EVENT,
  KEEP_ALIVE_MESSAGE,
  MAX_MESSAGE_LENGTH,
  parseAppMessage,
  parseInput,
} from './data-channels.ts';

/** `n` touch points in a row. */
const touchPoints = (n: number) => Array.from({ length: n }, (_, id) => ({ id, x: id, y: id }));

/** How an application reads `messages`. */
const parseMessage = (text: string) => parseAppMessage(text, MAX_MESSAGE_LENGTH);

describe('parseInput', () => {
  it.each([
    [
      { type: 'pointermove', x: 1, y: 2, buttons: 1, seq: 5 },
      { type: 'pointermove', x: 1, y: 2, buttons: 1, seq: 5 },
    ],
    [
      { type: 'pointerdown', x: 3, y: 4, button: 0 },
      { type: 'pointerdown', x: 3, y: 4, button: 0 },
    ],
    [
      { type: 'wheel', x: 1, y: 1, deltaX: 0, deltaY: -120 },
      { type: 'wheel', x: 1, y: 1, deltaX: 0, deltaY: -120 },
    ],
    [
      { type: 'keydown', key: 'a', code: 'KeyA' },
      { type: 'keydown', key: 'a', code: 'KeyA' },
    ],
    [
      { type: 'touchstart', touches: [{ id: 1, x: 5, y: 6 }] },
      { type: 'touchstart', touches: [{ id: 1, x: 5, y: 6 }] },
    ],
    [
      { type: 'resize', width: 800, height: 600 },
      { type: 'resize', width: 800, height: 600 },
    ],
  ])('parses %j', (event, expected) => {
    expect(parseInput(JSON.stringify(event))).toEqual(expected);
  });

  it('drops a non-numeric seq but keeps the event', () => {
    expect(parseInput(JSON.stringify({ type: 'keyup', key: 'b', code: 'KeyB', seq: 'x' }))).toEqual({
      type: 'keyup',
      key: 'b',
      code: 'KeyB',
    });
  });

  it.each([
    ['not JSON', '{"type":'],
    ['an array', '[1,2]'],
    ['an unknown type', JSON.stringify({ type: 'teleport', x: 1, y: 1 })],
    ['coordinates that are not numbers', JSON.stringify({ type: 'pointermove', x: '1', y: 2 })],
    ['a malformed touch', JSON.stringify({ type: 'touchmove', touches: [{ id: 1, x: 1 }] })],
    ['a resize to nothing', JSON.stringify({ type: 'resize', width: 0, height: 10 })],
    ['a key that is not text', JSON.stringify({ type: 'keydown', key: 5 })],
  ])('ignores %s', (_name, text) => {
    expect(parseInput(text)).toBeNull();
  });

  it.each([
    ['a coordinate past the bounds', { type: 'pointermove', x: 100_001, y: 0 }],
    ['a negative coordinate past the bounds', { type: 'pointerdown', x: 0, y: -1e6, button: 0 }],
    ['a touch point past the bounds', { type: 'touchstart', touches: [{ id: 1, x: 1e9, y: 0 }] }],
    ['a button past the forward button', { type: 'pointerdown', x: 1, y: 1, button: 5 }],
    ['a button that is not a whole number', { type: 'pointerup', x: 1, y: 1, button: 0.5 }],
    ['a negative button', { type: 'pointerup', x: 1, y: 1, button: -1 }],
    ['a button that is not a number', { type: 'pointerup', x: 1, y: 1, button: 'left' }],
    ['buttons past the five buttons', { type: 'pointermove', x: 1, y: 1, buttons: 64 }],
    ['a resize of a fraction of a pixel', { type: 'resize', width: 640.5, height: 360 }],
    ['a resize past the largest size', { type: 'resize', width: 16_386, height: 360 }],
    ['a negative resize', { type: 'resize', width: -1, height: 99_999_999 }],
    ['a resize with a size as text', { type: 'resize', width: '1920', height: null }],
    ['more touch points than a hand has', { type: 'touchmove', touches: touchPoints(11) }],
    ['a touch id that is not a whole number', { type: 'touchend', touches: [{ id: 0.5, x: 1, y: 1 }] }],
    ['a key name longer than any key has', { type: 'keydown', key: 'k'.repeat(33), code: 'KeyK' }],
    ['a code longer than any key has', { type: 'keyup', key: 'k', code: 'c'.repeat(33) }],
    ['a code that is not text', { type: 'keyup', key: 'k', code: {} }],
  ])('drops %s', (_name, event) => {
    expect(parseInput(JSON.stringify(event))).toBeNull();
  });

  it('drops numbers JSON reads as infinite, or that are not numbers', () => {
    expect(parseInput('{"type":"pointermove","x":1e400,"y":1}')).toBeNull();
    expect(parseInput('{"type":"wheel","x":1,"y":1,"deltaX":0,"deltaY":-1e400}')).toBeNull();
    expect(parseInput('{"type":"pointermove","x":"NaN","y":1}')).toBeNull();
  });

  it('clamps a wheel event to ten clicks of 100 pixels on each axis', () => {
    expect(INPUT_BOUNDS.wheelDelta).toBe(1_000);
    expect(parseInput(JSON.stringify({ type: 'wheel', x: 10, y: 10, deltaX: -5e3, deltaY: 1e20 }))).toEqual({
      type: 'wheel',
      x: 10,
      y: 10,
      deltaX: -1_000,
      deltaY: 1_000,
    });
  });

  it('takes the largest events a real player sends', () => {
    const edge = INPUT_BOUNDS.coordinate;
    expect(
      parseInput(JSON.stringify({ type: 'pointermove', x: -edge, y: edge, buttons: 31 })),
    ).not.toBeNull();
    expect(parseInput(JSON.stringify({ type: 'pointerdown', x: 1.5, y: 2, button: 4 }))).not.toBeNull();
    expect(parseInput(JSON.stringify({ type: 'touchstart', touches: touchPoints(10) }))).not.toBeNull();
    expect(parseInput(JSON.stringify({ type: 'resize', width: 16_384, height: 1 }))).not.toBeNull();
    expect(
      parseInput(JSON.stringify({ type: 'keydown', key: '👨‍👩‍👧‍👦', code: 'LaunchApplication1' })),
    ).not.toBeNull();
  });

  it('defaults a missing button, buttons or code', () => {
    expect(parseInput('{"type":"pointermove","x":1,"y":2}')).toEqual({
      type: 'pointermove',
      x: 1,
      y: 2,
      buttons: 0,
    });
    expect(parseInput('{"type":"pointerup","x":1,"y":2}')).toEqual({
      type: 'pointerup',
      x: 1,
      y: 2,
      button: 0,
    });
    expect(parseInput('{"type":"keyup","key":"a"}')).toEqual({ type: 'keyup', key: 'a', code: '' });
  });

  it('drops a seq that is not a whole number from 0 up, and keeps the event', () => {
    for (const seq of [-1, 1.5, 1e300]) {
      expect(parseInput(JSON.stringify({ type: 'keyup', key: 'b', code: 'KeyB', seq }))).not.toHaveProperty(
        'seq',
      );
    }
  });

  it('ignores binary messages', () => {
    expect(parseInput(Buffer.from('{"type":"pointermove","x":1,"y":1}'))).toBeNull();
  });
});

describe('parseAppMessage', () => {
  it('parses an event and defaults a missing payload to {}', () => {
    expect(parseMessage('{"event_type":"openStageRequest","payload":{"url":"a.usd"}}')).toEqual({
      event_type: 'openStageRequest',
      payload: { url: 'a.usd' },
    });
    expect(parseMessage('{"event_type":"loadingStateQuery"}')).toEqual({
      event_type: 'loadingStateQuery',
      payload: {},
    });
  });

  it('reads a keep-alive as an event with nothing in it', () => {
    expect(parseMessage(KEEP_ALIVE_MESSAGE)).toEqual({ event_type: KEEP_ALIVE_EVENT, payload: {} });
  });

  it('ignores messages without an event type', () => {
    expect(parseMessage('{"payload":{}}')).toBeNull();
    expect(parseMessage('nonsense')).toBeNull();
  });

  it('reads at most MAX_MESSAGE_LENGTH for an application, and any length for the player', () => {
    const text = JSON.stringify({
      event_type: 'clipboard',
      payload: { text: 'x'.repeat(MAX_MESSAGE_LENGTH) },
    });
    expect(parseMessage(text)).toBeNull();
    expect(parseAppMessage(text)?.event_type).toBe('clipboard');
    expect(
      parseInput(JSON.stringify({ type: 'keydown', key: 'a', code: 'x'.repeat(MAX_MESSAGE_LENGTH) })),
    ).toBeNull();
  });
});
