/** What is wrong with the wizard's choice, in words a person can act on, at the field it belongs to. */
import semver from 'semver';
import { isApiError } from '../../../lib/api-client';
import { describeError } from '../../../lib/error-text';
import type { VersionInfo } from '../../../lib/versions';
import { LaunchError } from '../api/launch-session';
import { fieldOfError, type LaunchField } from '../utils/launch-refusal';

const NAMES: Record<string, string> = { app: 'application', version: 'version', profile: 'profile' };
const WHATS: Record<string, string> = { app: 'Application', version: 'Version', profile: 'Profile' };

/** What a field is called in a sentence: "Fix the version above". */
export function fieldName(field: LaunchField, labels: Record<string, string>): string {
  if (field.startsWith('arguments.')) return labels[field.slice('arguments.'.length)] ?? 'arguments';
  return NAMES[field] ?? 'arguments';
}

/**
 * Why the choice cannot be reviewed yet, in words; undefined when it can. `checking`: the versions or profiles
 * of the application are still on their way (the profile may then be chosen for the person).
 */
export function reviewReason(state: {
  app: string;
  profile: string;
  checking: boolean;
  problem: string | undefined;
  missing: string | undefined;
}): string | undefined {
  if (!state.app) return 'Choose an application to review the launch.';
  if (state.problem) return `Fix the ${state.problem} above to review the launch.`;
  if (state.checking)
    return state.profile ? 'Checking that this profile applies…' : 'Looking up the profiles that apply…';
  if (!state.profile) return 'Choose a profile to review the launch.';
  if (state.missing) return `Fill in ${state.missing} to review the launch.`;
  return undefined;
}

/** An error's message for `field`, if it belongs there: a refused launch's words, or a lookup's while choosing. */
export function fieldMessage(error: unknown, field: LaunchField, value: string): string | undefined {
  if (error instanceof LaunchError) return error.field === field ? error.message : undefined;
  if (!isApiError(error) || fieldOfError(error, field) !== field) return undefined;
  if (error.status === 404) {
    const what = WHATS[field] ?? 'Argument';
    return `${what} ${value} no longer exists${field === 'profile' ? ' or does not apply to this version' : ''}.`;
  }
  return error.issues.map((i) => i.msg).join('; ') || describeError(error);
}

/**
 * A refused launch's words that no field shows: the arguments as a whole, or an argument the version
 * (as this page knows it) does not declare. The Options step shows them.
 */
export function optionsMessage(error: unknown, declared: readonly string[]): string | undefined {
  if (!(error instanceof LaunchError) || !error.field?.startsWith('arguments')) return undefined;
  const name = error.field.slice('arguments.'.length);
  return error.field === 'arguments' || !declared.includes(name) ? error.message : undefined;
}

/** The application field's problem found while choosing: an id the catalog does not have. */
export function appProblem(app: string, versionsError: unknown): string | undefined {
  if (isApiError(versionsError) && versionsError.status === 404) return `No application has id "${app}".`;
  return fieldMessage(versionsError, 'app', app);
}

/**
 * The version field's problem found while choosing: text that is no version at all, or one the application
 * does not have. The service's own words ("String should be a SemVer version") never reach the person.
 */
export function versionProblem(
  version: string,
  appName: string,
  versions: readonly VersionInfo[] | undefined,
): string | undefined {
  if (version === 'latest') return undefined;
  if (semver.valid(version) === null)
    return `${version} is not a version of ${appName}; versions are written like 1.2.0.`;
  if (versions && !versions.some((v) => v.version === version))
    return `${version} is not a version of ${appName}; choose one from the list.`;
  return undefined;
}
