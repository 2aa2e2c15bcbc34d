import { ApiError, type Session } from '../../../lib/api-client';
import { rememberSession } from '../../../lib/session-history';
import { createSession } from '../../../lib/api/create-session';
import { getApp } from '../../../lib/api/get-app';
import { getProfile } from '../../../lib/api/get-profile';
import { getVersion } from '../../../lib/api/get-version';

/**
 * The wizard's fields; each error is shown on one of them. `arguments.NAME`: the field of one argument;
 * `arguments`: the arguments as a whole.
 */
export type LaunchField = 'app' | 'version' | 'profile' | 'arguments' | `arguments.${string}`;

/** What the wizard asks for. */
export interface LaunchChoice {
  app: string;
  /** A version or `latest`. */
  version: string;
  /** The version `latest` stands for (the wizard knows it from the version list). */
  resolvedVersion: string | undefined;
  profile: string;
  /** The arguments' values, those left empty left out. */
  arguments: Record<string, string | number | boolean>;
}

/** A failure of a launch, with the field it belongs to (none for 403, 503, network failures...). */
export class LaunchError extends Error {
  constructor(
    readonly apiError: ApiError,
    readonly field: LaunchField | undefined,
  ) {
    super(apiError.message);
    this.name = 'LaunchError';
  }
}

/** Maps a 422 `loc` (`["body","version"]`, `["path","id"]`, ...) to the wizard's field. */
export function fieldOfLoc(loc: readonly (string | number)[]): LaunchField | undefined {
  const names = loc.map(String);
  const args = names.indexOf('arguments');
  if (args >= 0) return names[args + 1] === undefined ? 'arguments' : `arguments.${names[args + 1]}`;
  // A deployment that names the stage without `arguments` before it.
  if (names.includes('usd_stage_uri')) return 'arguments.usd_stage_uri';
  if (names.includes('profile')) return 'profile';
  if (names.includes('version')) return 'version';
  if (names.includes('id')) return 'app';
  return undefined;
}

/** The field an API error belongs to: a 422 names it, a 404 belongs to the step that looked it up. */
export function fieldOfError(error: ApiError, step: LaunchField | undefined): LaunchField | undefined {
  if (error.status === 422) return error.issues.map((i) => fieldOfLoc(i.loc)).find(Boolean) ?? step;
  if (error.status === 404) return step;
  return undefined;
}

function asLaunchError(error: unknown, step: LaunchField | undefined): unknown {
  return error instanceof ApiError ? new LaunchError(error, fieldOfError(error, step)) : error;
}

async function confirmStep<T>(step: LaunchField | undefined, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw asLaunchError(error, step);
  }
}

/**
 * Confirms the application, version and profile exist through the cfg endpoints (the seed asks clients to),
 * then POSTs /stream and remembers the session in this browser. The lookups go at once, not one after the
 * other (a round trip each before the launch); an error belongs to the first of them that failed, in that
 * order, since an application that is gone fails the other two as well.
 */
export async function launchSession(choice: LaunchChoice): Promise<Session> {
  const version = choice.version === 'latest' ? (choice.resolvedVersion ?? '*') : choice.version;
  const steps: { field: LaunchField; lookup: Promise<unknown> }[] = [
    { field: 'app', lookup: getApp(choice.app) },
    ...(choice.version === 'latest'
      ? []
      : [{ field: 'version' as const, lookup: getVersion(choice.app, choice.version) }]),
    { field: 'profile', lookup: getProfile(choice.app, version, choice.profile) },
  ];
  const settled = await Promise.allSettled(steps.map((step) => step.lookup));
  settled.forEach((result, i) => {
    if (result.status === 'rejected') throw asLaunchError(result.reason, steps[i]?.field);
  });
  const body = {
    id: choice.app,
    version: choice.version,
    profile: choice.profile,
    ...(Object.keys(choice.arguments).length > 0 ? { arguments: choice.arguments } : {}),
  };
  // POST errors other than a 422 belong to the whole form, not to a field.
  const session = await confirmStep(undefined, () => createSession(body));
  rememberSession({
    id: session.id,
    app: choice.app,
    version: choice.version === 'latest' ? (choice.resolvedVersion ?? 'latest') : choice.version,
    profile: choice.profile,
    startedAt: Date.now(),
  });
  return session;
}
