/**
 * Declared launch arguments (CONTRACT §20): what a version's `arguments` mean, checked once when the
 * catalog is read, and the POST /stream `arguments` checked against them.
 */
import { ValidationFailure, type ValidationIssue as Issue } from '../errors.ts';

/** The kinds of value a declared argument takes. */
export const ARGUMENT_TYPES = ['string', 'number', 'boolean', 'choice'] as const;
export type ArgumentType = (typeof ARGUMENT_TYPES)[number];

/** One argument a version takes (catalog `arguments`, served as is by GET /cfg/apps/{id}/versions). */
export interface ArgumentDeclaration {
  /** The key in `arguments`, and in `{arg:NAME=DEFAULT}` of the launch command. */
  name: string;
  label: string;
  type: ArgumentType;
  /** The values a `choice` takes. */
  choices?: string[];
  default?: string | number | boolean;
  description?: string;
  required: boolean;
}

/** An argument name: an identifier, as in `{arg:NAME=DEFAULT}`. */
export const ARGUMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** `{arg:NAME=DEFAULT}` in a command element (the runner's pattern). */
export const ARGUMENT_TEMPLATE = /\{arg:([A-Za-z0-9_]+)=[^}]*\}/g;

/** Pydantic's way of listing the allowed values: 'a', 'b' or 'c'. */
function either(choices: readonly string[]): string {
  const quoted = choices.map((c) => `'${c}'`);
  return quoted.length < 2 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

/** Why `value` does not fit `declared`, as a 422 issue without its `loc`; undefined when it fits. */
export function misfit(declared: ArgumentDeclaration, value: unknown): Omit<Issue, 'loc'> | undefined {
  switch (declared.type) {
    case 'string':
      return typeof value === 'string'
        ? undefined
        : { msg: 'Input should be a valid string', type: 'string_type' };
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
        ? undefined
        : { msg: 'Input should be a valid number', type: 'float_type' };
    case 'boolean':
      return typeof value === 'boolean'
        ? undefined
        : { msg: 'Input should be a valid boolean', type: 'bool_type' };
    case 'choice':
      return typeof value === 'string' && (declared.choices ?? []).includes(value)
        ? undefined
        : { msg: `Input should be ${either(declared.choices ?? [])}`, type: 'literal_error' };
  }
}

/**
 * The arguments a session gets: `given` checked against the declaration, defaults filled in. Throws
 * ValidationFailure (422) naming each argument that is unknown, of the wrong type, outside its choices
 * or missing, at `["body","arguments",name]`. Without a declaration, `given` passes as it is.
 */
export function checkDeclaredArguments(
  declared: readonly ArgumentDeclaration[] | undefined,
  given: Record<string, unknown> | undefined,
  what: string,
): Record<string, unknown> {
  if (declared === undefined) return given ?? {};
  const values = { ...given };
  const issues: Issue[] = [];
  const takes = declared.length === 0 ? 'none' : declared.map((d) => d.name).join(', ');
  for (const name of Object.keys(values)) {
    if (!declared.some((d) => d.name === name)) {
      issues.push({
        loc: ['body', 'arguments', name],
        msg: `${what} takes no argument "${name}" (it takes ${takes})`,
        type: 'extra_forbidden',
      });
    }
  }
  for (const d of declared) {
    const loc = ['body', 'arguments', d.name];
    if (values[d.name] === undefined) {
      if (d.default !== undefined) values[d.name] = d.default;
      else if (d.required) issues.push({ loc, msg: `Field required: ${d.label}`, type: 'missing' });
      continue;
    }
    const wrong = misfit(d, values[d.name]);
    if (wrong) issues.push({ loc, ...wrong });
  }
  if (issues.length > 0) throw new ValidationFailure(issues);
  return values;
}

type Path = (string | number)[];

/** What the catalog loader's checker offers: `fail` reports `file:line: problem` (load-catalog.ts). */
export interface DeclarationChecker {
  fail(path: Path, problem: string): never;
  object(value: unknown, path: Path, allowed: string[]): Record<string, unknown>;
  list(value: unknown, path: Path): unknown[];
  text(obj: Record<string, unknown>, key: string, path: Path, optional?: boolean): string;
}

const KEYS = ['name', 'label', 'type', 'choices', 'default', 'description', 'required'];

function checkDeclaration(c: DeclarationChecker, entry: unknown, at: Path): ArgumentDeclaration {
  const obj = c.object(entry, at, KEYS);
  const name = c.text(obj, 'name', at);
  if (!ARGUMENT_NAME.test(name))
    c.fail(
      [...at, 'name'],
      `"${name}" is not a valid argument name (letters, digits and "_", not first a digit)`,
    );
  const type = c.text(obj, 'type', at) as ArgumentType;
  if (!ARGUMENT_TYPES.includes(type))
    c.fail([...at, 'type'], `"type" must be one of ${ARGUMENT_TYPES.join(', ')}`);
  const declared: ArgumentDeclaration = {
    name,
    label: c.text(obj, 'label', at, true) || name,
    type,
    required: false,
  };
  if (obj.choices !== undefined || type === 'choice') {
    if (type !== 'choice') c.fail([...at, 'choices'], '"choices" belong to an argument of type choice');
    if (obj.choices === undefined) c.fail(at, 'an argument of type choice needs "choices"');
    const choices = c.list(obj.choices, [...at, 'choices']);
    if (choices.length === 0) c.fail([...at, 'choices'], '"choices" must name at least one value');
    choices.forEach((choice, i) => {
      if (typeof choice !== 'string' || choice === '')
        c.fail([...at, 'choices', i], 'each choice must be text');
      if (choices.indexOf(choice) !== i) c.fail([...at, 'choices', i], `choice "${choice}" is listed twice`);
    });
    declared.choices = choices as string[];
  }
  if (obj.description !== undefined) declared.description = c.text(obj, 'description', at);
  if (obj.required !== undefined) {
    if (typeof obj.required !== 'boolean') c.fail([...at, 'required'], '"required" must be true or false');
    declared.required = obj.required;
  }
  if (obj.default !== undefined) {
    const value = obj.default as string | number | boolean;
    const wrong = misfit(declared, value);
    if (wrong)
      c.fail([...at, 'default'], `"default" does not fit the type ${type}: ${wrong.msg.toLowerCase()}`);
    declared.default = value;
  }
  return declared;
}

/** A version's `arguments`: every entry complete and of its type, each name once. */
export function checkDeclarations(c: DeclarationChecker, value: unknown, path: Path): ArgumentDeclaration[] {
  const declared = c.list(value, path).map((entry, i) => checkDeclaration(c, entry, [...path, i]));
  declared.forEach((d, i) => {
    if (declared.findIndex((other) => other.name === d.name) !== i)
      c.fail([...path, i, 'name'], `argument "${d.name}" is declared twice`);
  });
  return declared;
}

/** Where a version declares its arguments, its command's `{arg:NAME=DEFAULT}` name only declared ones. */
export function checkTemplates(
  c: DeclarationChecker,
  command: readonly string[],
  declared: readonly ArgumentDeclaration[],
  path: Path,
): void {
  command.forEach((element, i) => {
    for (const [, name] of element.matchAll(ARGUMENT_TEMPLATE)) {
      if (!declared.some((d) => d.name === name)) {
        const takes = declared.length === 0 ? 'none' : declared.map((d) => d.name).join(', ');
        c.fail(
          [...path, i],
          `argument "${name}" is not declared in this version's arguments (declared: ${takes})`,
        );
      }
    }
  });
}
