/**
 * Limits on the POST /stream body's `arguments`, which the service keeps with the session, writes to
 * its state and hands to the application. A body within the 64 KiB limit can still nest thousands of
 * levels deep: no application needs that, and whatever encodes it recursively (JSON.stringify among
 * them) overflows the stack. The walk here keeps its own stack, so that it cannot overflow itself.
 */
import { ValidationFailure } from '../errors.ts';

type Loc = (string | number)[];

/** How deep `arguments` may nest (the object itself is level 1), and how many keys and bytes it may hold. */
export const ARGUMENT_LIMITS = { depth: 8, keys: 256, bytes: 16 * 1024 };

/** One object or list met on the walk, and how it was reached, so that a refusal can name where it is. */
interface Frame {
  value: object;
  depth: number;
  key: string | number;
  parent: Frame | undefined;
}

function locOf(frame: Frame, base: Loc): Loc {
  const keys: Loc = [];
  for (let at: Frame | undefined = frame; at?.parent; at = at.parent) keys.push(at.key);
  return [...base, ...keys.reverse()];
}

function tooMuch(loc: Loc, what: string): ValidationFailure {
  return new ValidationFailure([{ loc, msg: `Value error, arguments may ${what}`, type: 'value_error' }]);
}

/**
 * Throws ValidationFailure (422, `value_error`) when `value` nests deeper than the limit (`loc` names
 * the first object or list too deep), holds too many keys in all, or is too large as JSON text.
 */
export function checkArguments(value: unknown, base: Loc, limits = ARGUMENT_LIMITS): void {
  if (typeof value !== 'object' || value === null) return;
  const stack: Frame[] = [{ value, depth: 1, key: '', parent: undefined }];
  let keys = 0;
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    const list = Array.isArray(frame.value);
    const entries: [string | number, unknown][] = list
      ? (frame.value as unknown[]).map((item, i) => [i, item])
      : Object.entries(frame.value);
    if (!list && (keys += entries.length) > limits.keys) {
      throw tooMuch(base, `hold at most ${limits.keys} keys in all`);
    }
    for (const [key, child] of entries) {
      if (typeof child !== 'object' || child === null) continue;
      const next: Frame = { value: child, depth: frame.depth + 1, key, parent: frame };
      if (next.depth > limits.depth) {
        throw tooMuch(locOf(next, base), `nest at most ${limits.depth} levels deep`);
      }
      stack.push(next);
    }
  }
  // Safe to encode now: the depth is bounded.
  if (Buffer.byteLength(JSON.stringify(value)) > limits.bytes) {
    throw tooMuch(base, `take at most ${limits.bytes / 1024} KiB as JSON`);
  }
}
