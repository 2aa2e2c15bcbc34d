/**
 * Reading a catalog document: each check names the file, the line and the key of what it refuses.
 */
import { isNode, type Document, type LineCounter } from 'yaml';
import { IDENTIFIER } from './model.ts';

/** The catalog cannot be used; the message names the file, the line and the problem. */
export class CatalogError extends Error {
  override name = 'CatalogError';
}

export type Path = (string | number)[];
export type Obj = Record<string, unknown>;

export class Checker {
  constructor(
    readonly file: string,
    private readonly doc: Document,
    private readonly lines: LineCounter,
    readonly checkFiles = false,
  ) {}

  /** The line of the deepest node that exists along `path` (a missing key is reported at its parent). */
  line(path: Path): number {
    for (let depth = path.length; depth >= 0; depth--) {
      const node: unknown = this.doc.getIn(path.slice(0, depth), true);
      if (isNode(node) && node.range) return this.lines.linePos(node.range[0]).line;
    }
    return 1;
  }

  fail(path: Path, problem: string): never {
    const where = path.length > 0 ? ` (${path.join('.')})` : '';
    throw new CatalogError(`${this.file}:${this.line(path)}: ${problem}${where}`);
  }

  object(value: unknown, path: Path, allowed: string[]): Obj {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      this.fail(path, 'expected a mapping');
    const obj = value as Obj;
    for (const key of Object.keys(obj)) {
      if (!allowed.includes(key))
        this.fail([...path, key], `unknown key "${key}"; expected one of ${allowed.join(', ')}`);
    }
    return obj;
  }

  list(value: unknown, path: Path): unknown[] {
    if (!Array.isArray(value)) this.fail(path, 'expected a list');
    return value;
  }

  text(obj: Obj, key: string, path: Path, optional = false): string {
    const value = obj[key];
    if (value === undefined && optional) return '';
    if (value === undefined) this.fail(path, `missing required key "${key}"`);
    if (typeof value !== 'string') this.fail([...path, key], `"${key}" must be text`);
    return value;
  }

  id(obj: Obj, key: string, path: Path, wildcard = false): string {
    const value = this.text(obj, key, path);
    if (!(wildcard && value === '*') && !IDENTIFIER.test(value)) {
      this.fail([...path, key], `"${value}" is not a valid id (letters, digits, ".", "_", "-"; at most 64)`);
    }
    return value;
  }

  integer(obj: Obj, key: string, path: Path, min: number, max: number, fallback: number): number {
    const value = obj[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail([...path, key], `"${key}" must be a whole number from ${min} to ${max}`);
    }
    return value;
  }
}
