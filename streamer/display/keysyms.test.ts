import { describe, expect, it } from 'vitest';
import { isModifier, keysymOf } from './keysyms.ts';

describe('keysymOf', () => {
  it('maps printable characters by code point, non-ASCII included', () => {
    expect(keysymOf('a', 'KeyA')).toBe(0x61);
    expect(keysymOf('A', 'KeyA')).toBe(0x41);
    expect(keysymOf(' ', 'Space')).toBe(0x20);
    expect(keysymOf('é', 'KeyE')).toBe(0xe9);
    expect(keysymOf('€', 'KeyE')).toBe(0x010020ac);
    expect(keysymOf('😀', '')).toBe(0x0101f600);
  });

  it('maps named keys, function keys and left and right modifiers', () => {
    expect(keysymOf('Enter', 'Enter')).toBe(0xff0d);
    expect(keysymOf('ArrowUp', 'ArrowUp')).toBe(0xff52);
    expect(keysymOf('F1', 'F1')).toBe(0xffbe);
    expect(keysymOf('F12', 'F12')).toBe(0xffc9);
    expect(keysymOf('Shift', 'ShiftRight')).toBe(0xffe2);
    expect(keysymOf('Control', 'ControlLeft')).toBe(0xffe3);
    expect(isModifier(0xffe3)).toBe(true);
    expect(isModifier(0x61)).toBe(false);
  });

  it('ignores keys X has no use for', () => {
    expect(keysymOf('Unidentified', '')).toBeNull();
    expect(keysymOf('Dead', 'Quote')).toBeNull();
    expect(keysymOf('ab', '')).toBeNull();
    expect(keysymOf('\u0007', '')).toBeNull();
  });
});
