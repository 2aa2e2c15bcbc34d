/**
 * What the service's refusal of a launch (a 4xx or 503 of POST /stream) means for the person, in words they can
 * act on, and where in the wizard it belongs: the field or step it concerns, or the form as a whole. The service
 * checks the choice itself (CONTRACT §5, §16, §17, §20), so these are the only checks a launch goes through.
 */
import { ApiError, type ValidationIssue } from '../../../lib/api-client';
import { describeError } from '../../../lib/error-text';

/**
 * The wizard's fields; each error is shown on one of them. `arguments.NAME`: the field of one argument;
 * `arguments`: the arguments as a whole (the Options step).
 */
export type LaunchField = 'app' | 'version' | 'profile' | 'arguments' | `arguments.${string}`;

/** A refusal in words, where it belongs (undefined: the whole form), and what may help. */
export interface LaunchRefusal {
  field: LaunchField | undefined;
  message: string;
  /** Trying the same launch again may work (a busy service, a lost connection). */
  retry: boolean;
  /** The person's own sessions are the way out (a limit on how many they may have). */
  sessions: boolean;
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

/** The field an API error belongs to: a 422 names it, a 404 of a lookup belongs to the step that made it. */
export function fieldOfError(error: ApiError, step: LaunchField | undefined): LaunchField | undefined {
  if (error.status === 422) return error.issues.map((i) => fieldOfLoc(i.loc)).find(Boolean) ?? step;
  if (error.status === 404) return step;
  return undefined;
}

const CHOOSE: Partial<Record<LaunchField, string>> = {
  app: 'Choose an application from the list.',
  version: 'Choose a version from the list.',
  profile: 'Choose a profile that applies to this version.',
};

/** One issue of a 422 (or of a 400 that lists them) in words, with what to do at its field. */
function issueWords(issue: ValidationIssue, field: LaunchField | undefined): string {
  // The argument limits' issues begin as Pydantic's do ("Value error, arguments may ...").
  const msg = issue.msg.replace(/^Value error, (.)/, (_m, first: string) => first.toUpperCase());
  const said = /[.!?]$/.test(msg) ? msg : `${msg}.`;
  if (issue.type === 'not_found' && field) return `${said} ${CHOOSE[field] ?? ''}`.trim();
  if (issue.type === 'extra_forbidden')
    return `${said} The catalog has changed since this page loaded: reload it and fill in the options again.`;
  if (issue.type === 'missing' && field?.startsWith('arguments.')) return `${said} Fill it in.`;
  return said;
}

/** A 404 of a deployment that does not say which field (OVAS): its words say what was not found. */
function fieldOfSentence(detail: string): LaunchField | undefined {
  const text = detail.toLowerCase();
  if (text.includes('profile')) return 'profile';
  if (text.includes('version')) return 'version';
  if (text.includes('app')) return 'app';
  return undefined;
}

/** Every issue at the first field they name; the issues of the others stay with their own fields. */
function issuesRefusal(error: ApiError): LaunchRefusal {
  const field = error.issues.map((i) => fieldOfLoc(i.loc)).find(Boolean);
  const words = error.issues.filter((i) => fieldOfLoc(i.loc) === field).map((i) => issueWords(i, field));
  return { field, message: words.join(' '), retry: false, sessions: false };
}

/** What a refusal of POST /stream means, and where the wizard shows it. */
export function launchRefusal(error: ApiError): LaunchRefusal {
  const detail = typeof error.detail === 'string' ? error.detail : '';
  const plain = { retry: false, sessions: false };
  switch (error.status) {
    case 400:
    case 422:
      if (error.issues.length > 0) return issuesRefusal(error);
      // What the service could not read is what the person typed: the arguments.
      return { ...plain, field: 'arguments', message: `${detail} Check the options you gave.`.trim() };
    case 404: {
      const field = fieldOfSentence(detail);
      const action = (field && CHOOSE[field]) ?? 'Choose the application, version and profile again.';
      return { ...plain, field, message: `${detail || 'It is not in the catalog any more.'} ${action}` };
    }
    case 409:
      return {
        field: undefined,
        message: `${describeError(error)} Your sessions may already hold what you asked for.`,
        retry: false,
        sessions: true,
      };
    case 413:
      return {
        ...plain,
        field: 'arguments',
        message: 'The options are too long to send; shorten the longest of them.',
      };
    case 429: {
      // A limit on launches in a row says when to try again; one on sessions held is lifted by ending one.
      const wait = /try again/i.test(detail);
      const message = wait
        ? describeError(error)
        : detail || 'You have as many sessions as you may; end one before starting another.';
      return { field: undefined, message, retry: wait, sessions: !wait };
    }
    case 503:
      // Without a wait to name, the service refuses this application on this machine: waiting will not help.
      if (error.retryAfter === undefined && /cannot start/i.test(detail)) {
        return {
          ...plain,
          field: 'app',
          message: `${detail} Choose another application, or ask the operator.`,
        };
      }
      return { field: undefined, message: describeError(error), retry: true, sessions: false };
    default:
      return {
        field: undefined,
        message: describeError(error, 'This application'),
        retry: error.status === 0 || error.status >= 500,
        sessions: false,
      };
  }
}
