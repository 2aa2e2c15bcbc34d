/**
 * Checks requests against the schemas of api/openapi.yaml (the one contract) with Ajv, as the
 * validator compiler of the routes that declare them (contract.ts), and reports failures the way
 * FastAPI does: `loc` from where the value came, Pydantic v2 type names.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { parse } from 'yaml';
import { ValidationFailure, type ValidationIssue } from '../errors.ts';

/** The parsed OpenAPI document, also served at /api/openapi.json and /api/docs. */
export const openApiDocument: Record<string, unknown> = parse(
  readFileSync(path.resolve(import.meta.dirname, '../../api/openapi.yaml'), 'utf8'),
) as Record<string, unknown>;

// Not strict: the document carries OpenAPI keywords (description, example) that are not JSON Schema.
// The whole document is added, so that parameter schemas under `paths` can be used too.
const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, validateSchema: false });
ajv.addSchema({ ...openApiDocument, $id: 'openapi' });

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
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]).map((v) => `'${String(v)}'`);
      const words =
        allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}` : allowed[0];
      return { loc: at, msg: `Input should be ${words}`, type: 'enum' };
    }
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

type Validation = { value: unknown } | { error: ValidationFailure };

/** Where a part of the request is in a 422's `loc`. */
const LOC = { params: 'path', querystring: 'query', body: 'body', headers: 'header' } as const;

/** Body schemas of operations whose body may be left out (see `optionalBody`). */
const optionalBodies = new WeakSet<object>();

/** Marks a body schema as one that may be left out: no body is then an empty object, defaults filled in. */
export function optionalBody<T extends object>(schema: T): T {
  optionalBodies.add(schema);
  return schema;
}

/**
 * Fastify's validator compiler for the schemas the routes take from the contract (contract.ts). The
 * schemas' `$ref`s point into the contract, which Ajv holds as `openapi`. A failure answers the
 * contract's 422; query values are read first the way FastAPI reads them (see `readQuery`).
 */
export const compileValidator: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const part = (httpPart ?? 'body') as keyof typeof LOC;
  const base = [LOC[part] ?? part];
  const fn = ajv.compile(schema);
  const optional = optionalBodies.has(schema);
  return (data: unknown): Validation => {
    let value = data;
    const issues: ValidationIssue[] = [];
    if (part === 'querystring') value = readQuery(schema, data, issues);
    else if (part === 'body' && (value === null || value === undefined)) {
      if (!optional) return failure([{ loc: base, msg: 'Field required', type: 'missing' }]);
      value = {};
    }
    if (!fn(value)) issues.push(...collapseOneOf(fn.errors ?? [], value, base));
    return issues.length > 0 ? failure(issues) : { value };
  };
};

function failure(issues: ValidationIssue[]): Validation {
  return { error: new ValidationFailure(issues) };
}

/**
 * The query as FastAPI reads it, by the schema of each parameter: an integer from digits (the last of
 * repeated values; anything else an `int_parsing` issue, and the value left out of the checks that
 * follow), a list from one value or many. The copy is what the handler gets, defaults filled in.
 */
function readQuery(schema: object, data: unknown, issues: ValidationIssue[]): Record<string, unknown> {
  const query: Record<string, unknown> = { ...(data as Record<string, unknown> | null) };
  const properties = (schema as { properties?: Record<string, { type?: string }> }).properties ?? {};
  for (const [name, property] of Object.entries(properties)) {
    const raw = query[name];
    if (raw === undefined) continue;
    if (property.type === 'array') {
      query[name] = Array.isArray(raw) ? raw : [raw];
    } else if (property.type === 'integer') {
      const text = Array.isArray(raw) ? raw[raw.length - 1] : raw;
      if (typeof text === 'string' && /^\s*[-+]?\d{1,15}\s*$/.test(text)) {
        query[name] = Number(text.trim());
      } else {
        delete query[name];
        issues.push({
          loc: ['query', name],
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          type: 'int_parsing',
        });
      }
    }
  }
  return query;
}
