/**
 * The session the later steps connect to: the person's own ready session where there is one, else a short test
 * session launched for the check, followed until it is ready. The runner ends a launched one, whatever happens.
 */
import { isApiError, type Application, type Session } from '../../../lib/api-client';
import { describeError } from '../../../lib/error-text';
import { launchLabel } from '../../../lib/launch-label';
import type { CheckApi, Clock } from './check-deps';
import { StepFailure } from './check-report';

/** A launched test session that is not ready within this long is given up. */
export const READY_TIMEOUT_MS = 60_000;

/** How often a pending test session is asked about (the portal's slowest poll of a waiting session). */
export const READY_POLL_MS = 1_000;

/** A ready session to test with. */
export interface TestSession {
  session: Session;
  /** Launched by the check (and so to be ended by it), or the person's own. */
  launched: boolean;
  /** What it is, in words: "your ready session USD Viewer 1.2.0 (small)". */
  words: string;
}

const isReady = (s: Session) => s.status.condition === 'ready' && s.routes !== undefined;

const LAUNCH_ADVICE =
  'The service may have no free GPU now: try again later, or launch a session yourself and run the check ' +
  'again (it then uses yours).';

/**
 * The person's ready session: one this browser started. Not any ready session the list holds: an admin's list
 * holds other people's, and the check must not join someone else's session as a viewer.
 */
function ownReady(api: CheckApi, sessions: readonly Session[]): Session | undefined {
  const ready = sessions.filter(isReady);
  return api
    .startedHere()
    .map((id) => ready.find((s) => s.id === id))
    .find((s) => s !== undefined);
}

/** What a test session launches: the catalog's first application, its latest version, its first profile. */
async function choose(api: CheckApi, apps: readonly Application[], signal?: AbortSignal) {
  const app = apps[0];
  if (!app)
    throw new StepFailure(
      'There is no ready session to test with, and the catalog lists no application to launch one.',
      'Launch a session, or ask for an application in the catalog, then run the check again.',
    );
  const what = (error: unknown) => describeError(error, app.name);
  const versions = await api.getVersions(app.id, signal).catch((error: unknown) => {
    throw new StepFailure(`The versions of ${app.name} could not be read: ${what(error)}`, LAUNCH_ADVICE);
  });
  const version = (versions.find((v) => v.latest) ?? versions[0])?.version;
  if (!version)
    throw new StepFailure(`${app.name} has no version to launch a test session of.`, LAUNCH_ADVICE);
  const profiles = await api.getProfiles(app.id, version, signal).catch((error: unknown) => {
    throw new StepFailure(
      `The profiles of ${app.name} ${version} could not be read: ${what(error)}`,
      LAUNCH_ADVICE,
    );
  });
  const profile = profiles[0];
  if (!profile)
    throw new StepFailure(
      `No profile applies to ${app.name} ${version}: no test session can run.`,
      LAUNCH_ADVICE,
    );
  return {
    body: { id: app.id, version, profile: profile.id },
    label: `${app.name} ${version} (${profile.name})`,
  };
}

/** Asks about a launched session until it is ready, it ends, or `READY_TIMEOUT_MS` from `startedAt` pass. */
async function followUntilReady(
  api: CheckApi,
  clock: Clock,
  first: Session,
  startedAt: number,
  progress: (detail: string) => void,
  signal?: AbortSignal,
): Promise<Session> {
  let session = first;
  for (;;) {
    if (isReady(session)) return session;
    progress(`Test session ${session.id}: ${session.status.message}`);
    const left = startedAt + READY_TIMEOUT_MS - clock.now();
    if (left <= 0)
      throw new StepFailure(
        `The test session was not ready within ${READY_TIMEOUT_MS / 1000} s; the service said last: ` +
          `“${session.status.message}”.`,
        LAUNCH_ADVICE,
      );
    await clock.wait(Math.min(READY_POLL_MS, left), signal);
    try {
      session = await api.getSession(session.id, signal);
    } catch (error) {
      signal?.throwIfAborted();
      if (isApiError(error) && error.status === 410)
        throw new StepFailure(`The test session failed: ${describeError(error)}`, LAUNCH_ADVICE);
      if (isApiError(error) && error.status === 404)
        throw new StepFailure('The test session ended before it was ready.', LAUNCH_ADVICE);
      // No answer for a moment (the service restarting): the deadline still holds.
      if (isApiError(error) && (error.status === 0 || error.status >= 500)) continue;
      throw new StepFailure(`The test session could not be followed: ${describeError(error)}`, LAUNCH_ADVICE);
    }
  }
}

/**
 * The session to test with. `launched(id)` is called as soon as the service has made a test session, before
 * anything else can fail, so that the caller ends it on every way out.
 */
export async function testSession(
  api: CheckApi,
  clock: Clock,
  listed: { apps: readonly Application[]; sessions: readonly Session[] },
  launched: (id: string) => void,
  progress: (detail: string) => void,
  signal?: AbortSignal,
): Promise<TestSession> {
  const own = ownReady(api, listed.sessions);
  if (own) {
    const label = launchLabel(own.app, own.version, own.profile);
    return {
      session: own,
      launched: false,
      words: `your ready session ${label ? `${label}, ` : ''}${own.id}`,
    };
  }
  const { body, label } = await choose(api, listed.apps, signal);
  progress(`Launching a test session of ${label}.`);
  const startedAt = clock.now();
  let first: Session;
  try {
    first = await api.createSession(body);
  } catch (error) {
    throw new StepFailure(
      `The service did not start a test session of ${label}: ${describeError(error)}`,
      LAUNCH_ADVICE,
    );
  }
  launched(first.id);
  signal?.throwIfAborted();
  const session = await followUntilReady(api, clock, first, startedAt, progress, signal);
  const seconds = ((clock.now() - startedAt) / 1000).toFixed(1);
  return { session, launched: true, words: `a test session of ${label}, ready in ${seconds} s` };
}
