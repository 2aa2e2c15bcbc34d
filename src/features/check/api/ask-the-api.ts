/** The first step: both APIs answer, the catalog's and the streaming one's. */
import { isApiError, type Application, type Session } from '../../../lib/api-client';
import { describeError } from '../../../lib/error-text';
import type { CheckApi } from './check-deps';
import { StepFailure, type StepPass } from './check-report';
import { plural } from '../../../lib/plural';

/** What the API step learnt, for the steps after it. */
export interface ApiFindings {
  pass: StepPass;
  /** The catalog's applications, in its order. */
  apps: Application[];
  /** The person's sessions, where the service lists them (empty where it does not). */
  sessions: Session[];
}

/** "The catalog API answered GET <url> with HTTP 503: Busy." in words a person can act on. */
function failed(what: string, url: string, error: unknown): string {
  const said = describeError(error, what);
  if (isApiError(error) && error.status === 0) return `${what} did not answer GET ${url}: ${said}`;
  if (isApiError(error)) return `${what} answered GET ${url} with HTTP ${error.status}: ${said}`;
  return `${what} failed at GET ${url}: ${said}`;
}

/** GET /cfg/apps and GET /stream, at once; a deployment that does not list sessions (404, 405) still answered. */
export async function askTheApi(api: CheckApi, signal?: AbortSignal): Promise<ApiFindings> {
  const [apps, sessions] = await Promise.allSettled([
    api.getApps(signal),
    api.getSessions(signal).then(
      (list): Session[] | undefined => list,
      (error: unknown) => {
        if (isApiError(error) && (error.status === 404 || error.status === 405)) return undefined;
        throw error;
      },
    ),
  ]);
  signal?.throwIfAborted();
  const problems: string[] = [];
  if (apps.status === 'rejected')
    problems.push(failed('The catalog API', `${api.catalogUrl}/cfg/apps`, apps.reason));
  if (sessions.status === 'rejected')
    problems.push(failed('The streaming API', `${api.streamUrl}/stream`, sessions.reason));
  if (apps.status === 'rejected' || sessions.status === 'rejected')
    throw new StepFailure(
      problems.join(' '),
      'Check that the service is running and that Settings names its addresses, then run the check again.',
    );
  const listed = sessions.value;
  return {
    pass: {
      detail:
        `The catalog API lists ${plural(apps.value.count, 'application')}; the streaming API ` +
        (listed ? `lists ${plural(listed.length, 'session')}.` : 'answers (it does not list sessions).'),
    },
    apps: apps.value.items,
    sessions: listed ?? [],
  };
}
