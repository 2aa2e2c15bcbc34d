/**
 * The wizard's launch arguments (CONTRACT §20): which fields a version asks for, where their text lives (the
 * page's query, like the rest of the choice, so that a link carries it), and the values they send.
 */
import type { ArgumentDeclaration } from '../../../lib/api-client';
import type { VersionInfo } from '../../../lib/versions';

/** What deployments without declarations take, as the wizard always offered it. */
export const STAGE_ARGUMENT: ArgumentDeclaration = {
  name: 'usd_stage_uri',
  label: 'USD stage URI',
  type: 'string',
  required: false,
  description: 'A stage for the application to open, e.g. omniverse://host/stage.usd',
};

/**
 * The arguments step's fields: what the version declares (none for `[]`), or the USD stage where the
 * deployment declares nothing. None until the version is known.
 */
export function argumentFields(version: VersionInfo | undefined): ArgumentDeclaration[] {
  if (!version) return [];
  return version.arguments ?? [STAGE_ARGUMENT];
}

/** The wizard's own query keys: an argument of the same name keeps its text under `arg.NAME`. */
const TAKEN = new Set(['app', 'version', 'profile', 'session', 'step']);

/** The query key that holds an argument's text (`usd_stage_uri=...`, `model=...`). */
export function argumentParam(name: string): string {
  return TAKEN.has(name) ? `arg.${name}` : name;
}

/** The text a field shows: the link's, else the declared default, else nothing. */
export function argumentText(declared: ArgumentDeclaration, params: URLSearchParams): string {
  const given = params.get(argumentParam(declared.name));
  if (given !== null) return given;
  return declared.default === undefined ? '' : String(declared.default);
}

/** An argument's value from its text: `value` to send (absent: left out), or why it cannot be sent. */
export interface ArgumentValue {
  value?: string | number | boolean;
  /** In error: the field says so in red. */
  problem?: string;
  /** Required and empty: Review says what to fill in, the field stays calm until then. */
  missing?: boolean;
}

export function argumentValue(declared: ArgumentDeclaration, text: string): ArgumentValue {
  const trimmed = text.trim();
  if (declared.type === 'boolean') return { value: trimmed === 'true' };
  if (trimmed === '') return declared.required ? { missing: true } : {};
  if (declared.type === 'number') {
    const number = Number(trimmed);
    return Number.isFinite(number)
      ? { value: number }
      : { problem: `${declared.label} is a number, such as 2 or 0.5.` };
  }
  if (declared.type === 'choice' && !(declared.choices ?? []).includes(trimmed)) {
    return { problem: `${trimmed} is not one of the choices: ${(declared.choices ?? []).join(', ')}.` };
  }
  return { value: trimmed };
}

/** The values to send for `fields`, read from the page's query. */
export function argumentValues(
  fields: readonly ArgumentDeclaration[],
  params: URLSearchParams,
): Record<string, string | number | boolean> {
  const values: Record<string, string | number | boolean> = {};
  for (const field of fields) {
    const { value } = argumentValue(field, argumentText(field, params));
    if (value !== undefined) values[field.name] = value;
  }
  return values;
}
