import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_LENGTH, parseAppMessage, parseInput } from './data-channels.ts';

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
