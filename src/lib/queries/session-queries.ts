import { infiniteQueryOptions, queryOptions, useQuery, type QueryState } from '@tanstack/react-query';
import { isApiError, type Session } from '../api-client';
import { getEndedSessions, type EndedPage } from '../api/get-ended-sessions';
import { getSession } from '../api/get-session';
import { listSessions } from './list-sessions';

/** What the portal knows of one session: the service's description, and why it is gone once it is. */
export interface SessionState {
  /** The service's last description (kept once it is gone, so that a page still names what ran). */
  session: Session | undefined;
  /** Why the session no longer runs, in words; undefined while the service has it. */
  ended: string | undefined;
}

/** The words of an end: 404 (no such session, or long ended) and 410 (it failed) are answers, not failures. */
function endedReason(error: unknown): string | undefined {
  // The link may name a session that ended long ago or never was: the service cannot tell them apart.
  if (isApiError(error) && error.status === 404)
    return 'No session has this id: it does not exist, or it has ended.';
  if (isApiError(error) && error.status === 410) {
    const detail = typeof error.detail === 'string' ? ` ${error.detail}` : '';
    return `This session has ended: it failed.${detail}`;
  }
  return undefined;
}

/** GET /stream/{id} as a state; `previous` is what the service said before, kept when the session is gone. */
export async function readSession(
  id: string,
  signal?: AbortSignal,
  previous?: Session,
): Promise<SessionState> {
  try {
    return { session: await getSession(id, signal), ended: undefined };
  } catch (error) {
    const ended = endedReason(error);
    if (ended === undefined) throw error;
    return { session: previous, ended };
  }
}

/** What the portal says once the person has ended the session from this page (or another of this tab's). */
export const ENDED_HERE = 'You ended this session.';

/** Polling: quick at first, then backing off x1.5 up to 5 s. */
export function pollDelay(polls: number): number {
  return Math.min(500 * 1.5 ** polls, 5000);
}

/**
 * A failure that says nothing about the sessions: no answer (status 0), or a 5xx while the service restarts
 * or a proxy has lost it. Polling goes on through these; any other answer (a refusal) ends it.
 */
export function isTransientFailure(error: unknown): boolean {
  return isApiError(error) && (error.status === 0 || error.status >= 500);
}

/**
 * The slowest poll of a session that is not ready yet. A queued session is given a GPU at any moment and then
 * launches in under a second: at the backed-off 5 s, the page showed its video up to 5 s after that (6.8 s
 * measured after a GPU freed, for a 0.6 s launch). One small GET a second per waiting page is cheap.
 */
export const WAITING_POLL_MS = 1000;

/**
 * The one polling policy of a session: quick at first, backing off (`pollDelay`) to at most
 * `WAITING_POLL_MS` while it waits for a GPU or starts, and to 5 s through lost contact and while it runs
 * (to learn of its end soon); none once it has ended or the service refused.
 */
export function sessionPolling(state: QueryState<SessionState>): number | false {
  if ((state.status === 'error' && !isTransientFailure(state.error)) || state.data?.ended !== undefined)
    return false;
  const delay = pollDelay(state.dataUpdateCount + state.errorUpdateCount);
  const waiting = state.status === 'success' && state.data?.session?.status.condition !== 'ready';
  return waiting ? Math.min(delay, WAITING_POLL_MS) : delay;
}

/** How far back the sessions page shows ended sessions (the service keeps them at least this long). */
export const ENDED_WINDOW_MS = 30 * 24 * 3_600_000;
/** Ended sessions asked for at a time. */
const ENDED_PAGE = 50;

/** Whether `session` ended within the window before `now`. */
export function endedWithinWindow(session: Session, now: number): boolean {
  const at = Date.parse(session.ended_at ?? '');
  return !Number.isNaN(at) && now - at <= ENDED_WINDOW_MS;
}

/** The offset of the page after `last`, while the pages are still within the window. */
function nextEndedPage(last: EndedPage): number | undefined {
  const oldest = last.items.at(-1);
  if (oldest !== undefined && !endedWithinWindow(oldest, Date.now())) return undefined;
  return last.next;
}

/** Query options of sessions, read by several features; keys from general to specific. */
export const sessionQueries = {
  all: () => ['sessions'] as const,
  list: () =>
    queryOptions({
      queryKey: [...sessionQueries.all(), 'list'] as const,
      queryFn: ({ signal }) => listSessions(signal),
      // Pending sessions become ready on their own: a gentle refresh keeps the states honest. A refusal
      // (no token, a role without sessions) stands until the settings change; asking again won't help.
      refetchInterval: (query) =>
        query.state.status === 'error' && !isTransientFailure(query.state.error) ? false : 5000,
    }),
  /** Sessions that ended, newest first, a page at a time; `user`: one person's (an admin's filter). */
  ended: (user?: string) =>
    infiniteQueryOptions({
      queryKey: [...sessionQueries.all(), 'ended', { user: user ?? null }] as const,
      queryFn: ({ signal, pageParam }) =>
        getEndedSessions({ offset: pageParam, limit: ENDED_PAGE, ...(user ? { user } : {}) }, signal),
      initialPageParam: 0,
      getNextPageParam: nextEndedPage,
      // Sessions also end by themselves (no viewer, their lifetime, a failure): the list catches up now and then.
      refetchInterval: 30_000,
    }),
  detail: (id: string) =>
    queryOptions({
      queryKey: [...sessionQueries.all(), 'detail', id] as const,
      queryFn: ({ signal, client, queryKey }) => {
        const known = client.getQueryData<SessionState>(queryKey);
        // An end is final, and the first words of it are the truest: a refetch after the person ended it
        // (the viewer asks when its connection drops) would get the 404 of a session nobody knows.
        if (known?.ended !== undefined) return known;
        return readSession(id, signal, known?.session);
      },
    }),
};

/**
 * A session followed while a page shows it (`enabled`), with the one polling policy. Failures stay in the
 * page, which explains each: a lost service must not replace it with an error page.
 */
export function useWatchedSession(id: string, enabled = true) {
  return useQuery({
    ...sessionQueries.detail(id),
    enabled,
    refetchInterval: (query) => sessionPolling(query.state),
    throwOnError: false,
  });
}
