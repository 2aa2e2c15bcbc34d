/**
 * Checks requests against the schemas of api/openapi.yaml (the one contract) with Ajv, and reports
 * failures the way FastAPI does: `loc` from where the value came, Pydantic v2 type names.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import { ValidationFailure, type ValidationIssue } from './errors.ts';

/** The parsed OpenAPI document, also served at /api/openapi.json and /api/docs. */
export const openApiDocument: Record<string, unknown> = parse(
  readFileSync(path.resolve(import.meta.dirname, '../../api/openapi.yaml'), 'utf8'),
) as Record<string, unknown>;

// Not strict: the document carries OpenAPI keywords (description, example) that are not JSON Schema.
// The whole document is added, so that parameter schemas under `paths` can be used too.
const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, validateSchema: false });
ajv.addSchema({ ...openApiDocument, $id: 'openapi' });

const compiled = new Map<string, ValidateFunction>();
function schema(pointer: string): ValidateFunction {
  let fn = compiled.get(pointer);
  if (!fn) {
    fn = ajv.getSchema(`openapi#${pointer}`);
    if (!fn) throw new Error(`api/openapi.yaml has no schema at ${pointer}`);
    compiled.set(pointer, fn);
  }
  return fn;
}

type Loc = (string | number)[];

function segments(instancePath: string): string[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function valueAt(root: unknown, path: string[]): unknown {
  let value = root;
  for (const key of path) value = (value as Record<string, unknown> | undefined)?.[key];
  return value;
}

function typeIssue(expected: unknown, loc: Loc, atRoot: boolean): ValidationIssue {
  switch (expected) {
    case 'string':
      return { loc, msg: 'Input should be a valid string', type: 'string_type' };
    case 'integer':
      return { loc, msg: 'Input should be a valid integer', type: 'int_type' };
    case 'array':
      return { loc, msg: 'Input should be a valid list', type: 'list_type' };
    case 'object':
      return atRoot
        ? {
            loc,
            msg: 'Input should be a valid dictionary or object to extract fields from',
            type: 'model_type',
          }
        : { loc, msg: 'Input should be a valid dictionary', type: 'dict_type' };
    default:
      return { loc, msg: `Input should be of type ${String(expected)}`, type: 'type_error' };
  }
}

function toIssue(error: ErrorObject, base: Loc): ValidationIssue | null {
  const at = [...base, ...segments(error.instancePath)];
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { loc: [...at, String(p.missingProperty)], msg: 'Field required', type: 'missing' };
    case 'type':
      return typeIssue(p.type, at, error.instancePath === '');
    case 'pattern':
      return {
        loc: at,
        msg: `String should match pattern '${String(p.pattern)}'`,
        type: 'string_pattern_mismatch',
      };
    case 'maxLength':
      return {
        loc: at,
        msg: `String should have at most ${String(p.limit)} characters`,
        type: 'string_too_long',
      };
    case 'maxItems':
      return { loc: at, msg: `List should have at most ${String(p.limit)} items`, type: 'too_long' };
    case 'minimum':
      return {
        loc: at,
        msg: `Input should be greater than or equal to ${String(p.limit)}`,
        type: 'greater_than_equal',
      };
    case 'maximum':
      return {
        loc: at,
        msg: `Input should be less than or equal to ${String(p.limit)}`,
        type: 'less_than_equal',
      };
    default:
      return { loc: at, msg: error.message ?? 'Invalid value', type: 'value_error' };
  }
}

/**
 * Ajv reports a failed `oneOf` (a SemVer or `latest`, a SemVer or `*`) as one error per branch plus the
 * `oneOf` itself; a person wants one line: the value is not text, or the text is not one of the forms.
 */
function collapseOneOf(errors: ErrorObject[], value: unknown, base: Loc): ValidationIssue[] {
  const oneOfPaths = new Set(errors.filter((e) => e.keyword === 'oneOf').map((e) => e.instancePath));
  const issues: ValidationIssue[] = [];
  for (const path of oneOfPaths) {
    const loc = [...base, ...segments(path)];
    const v = valueAt(value, segments(path));
    const consts = errors
      .filter((e) => e.instancePath === path && e.keyword === 'const')
      .map((e) => `'${String((e.params as { allowedValue: unknown }).allowedValue)}'`);
    issues.push(
      typeof v === 'string'
        ? {
            loc,
            msg: `String should be a SemVer version or ${consts.join(' or ')}`,
            type: 'string_pattern_mismatch',
          }
        : typeIssue('string', loc, false),
    );
  }
  for (const error of errors) {
    if (oneOfPaths.has(error.instancePath)) continue;
    const issue = toIssue(error, base);
    if (issue) issues.push(issue);
  }
  return issues;
}

/** Checks `value` against the schema at `pointer` in api/openapi.yaml; throws ValidationFailure (422). */
export function check(pointer: string, value: unknown, base: Loc): void {
  const fn = schema(pointer);
  if (fn(value)) return;
  throw new ValidationFailure(collapseOneOf(fn.errors ?? [], value, base));
}

/** Checks several path or query values at once, so that one 422 lists every problem. */
export function checkAll(checks: { pointer: string; value: unknown; loc: Loc }[]): void {
  const issues: ValidationIssue[] = [];
  for (const c of checks) {
    try {
      check(c.pointer, c.value, c.loc);
    } catch (error) {
      if (!(error instanceof ValidationFailure)) throw error;
      issues.push(...error.issues);
    }
  }
  if (issues.length > 0) throw new ValidationFailure(issues);
}

/**
 * A query value read as an integer the way FastAPI does: the last of repeated values, digits only.
 * Returns `fallback` when absent; throws 422 `int_parsing` for anything else.
 */
export function queryInteger(raw: unknown, name: string, fallback: number): number {
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\s*[-+]?\d{1,15}\s*$/.test(value)) {
    throw new ValidationFailure([
      {
        loc: ['query', name],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        type: 'int_parsing',
      },
    ]);
  }
  return Number(value.trim());
}

/** Pointer to a schema in the document, e.g. `schemas/SessionId` -> `/components/schemas/SessionId`. */
export function component(name: string): string {
  return `/components/${name}`;
}
