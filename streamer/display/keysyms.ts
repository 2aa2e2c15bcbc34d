/**
 * Browser keys (KeyboardEvent.key and .code) as X keysyms. Printable characters map by code point
 * (Latin-1 directly, the rest as Unicode keysyms 0x01000000 + code point), so non-ASCII text types as
 * itself; named keys map by name, with `code` telling left from right modifiers.
 */

const NAMED: Record<string, number> = {
  Backspace: 0xff08,
  Tab: 0xff09,
  Enter: 0xff0d,
  Pause: 0xff13,
  ScrollLock: 0xff14,
  Escape: 0xff1b,
  Home: 0xff50,
  ArrowLeft: 0xff51,
  ArrowUp: 0xff52,
  ArrowRight: 0xff53,
  ArrowDown: 0xff54,
  PageUp: 0xff55,
  PageDown: 0xff56,
  End: 0xff57,
  Insert: 0xff63,
  ContextMenu: 0xff67,
  NumLock: 0xff7f,
  CapsLock: 0xffe5,
  Delete: 0xffff,
  PrintScreen: 0xff61,
  AltGraph: 0xfe03,
};

const BY_CODE: Record<string, number> = {
  ShiftLeft: 0xffe1,
  ShiftRight: 0xffe2,
  ControlLeft: 0xffe3,
  ControlRight: 0xffe4,
  MetaLeft: 0xffeb,
  MetaRight: 0xffec,
  AltLeft: 0xffe9,
  AltRight: 0xffea,
};

const MODIFIERS: Record<string, number> = { Shift: 0xffe1, Control: 0xffe3, Alt: 0xffe9, Meta: 0xffeb };

/** The keysym of a key event; null for keys X has no use for (Unidentified, Dead, Process). */
export function keysymOf(key: string, code: string): number | null {
  if (code in BY_CODE) return BY_CODE[code] as number;
  if (key in MODIFIERS) return MODIFIERS[key] as number;
  if (key in NAMED) return NAMED[key] as number;
  const f = /^F([1-9]|1[0-9]|2[0-4])$/.exec(key);
  if (f) return 0xffbd + Number(f[1]);
  const chars = [...key];
  if (chars.length !== 1) return null;
  const point = key.codePointAt(0) as number;
  if (point < 0x20 || (point >= 0x7f && point < 0xa0)) return null;
  return point < 0x100 ? point : 0x01000000 + point;
}

/** Whether a keysym is a modifier (held across other keys, never retyped with Shift). */
export function isModifier(keysym: number): boolean {
  return (keysym >= 0xffe1 && keysym <= 0xffee) || keysym === 0xfe03;
}
