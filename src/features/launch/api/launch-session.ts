import { ApiError, type Session } from '../../../lib/api-client';
import { rememberSession } from '../../../lib/session-history';
import { createSession } from '../../../lib/api/create-session';
import { launchRefusal, type LaunchField, type LaunchRefusal } from '../utils/launch-refusal';

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

/** The service's refusal of a launch, in words, with the field or step it belongs to (none: the whole form). */
export class LaunchError extends Error {
  readonly field: LaunchField | undefined;
  readonly retry: boolean;
  readonly sessions: boolean;

  constructor(readonly apiError: ApiError) {
    const refusal: LaunchRefusal = launchRefusal(apiError);
    super(refusal.message);
    this.name = 'LaunchError';
    this.field = refusal.field;
    this.retry = refusal.retry;
    this.sessions = refusal.sessions;
  }
}

/**
 * POSTs /stream once and remembers the session in this browser. Nothing is looked up first: the service
 * checks the application, version, profile and arguments itself, and its refusal names the field (LaunchError).
 */
export async function launchSession(choice: LaunchChoice): Promise<Session> {
  const body = {
    id: choice.app,
    version: choice.version,
    profile: choice.profile,
    ...(Object.keys(choice.arguments).length > 0 ? { arguments: choice.arguments } : {}),
  };
  let session: Session;
  try {
    session = await createSession(body);
  } catch (error) {
    throw error instanceof ApiError ? new LaunchError(error) : error;
  }
  rememberSession({
    id: session.id,
    app: choice.app,
    version: choice.version === 'latest' ? (choice.resolvedVersion ?? 'latest') : choice.version,
    profile: choice.profile,
    startedAt: Date.now(),
  });
  return session;
}
