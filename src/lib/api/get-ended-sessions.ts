import {
  getApiClients,
  isApiError,
  normaliseList,
  normaliseSession,
  unwrap,
  type Session,
} from '../api-client';

/** One page of ended sessions, newest first; `next`: the offset of the following page, if there is one. */
export interface EndedPage {
  items: Session[];
  next: number | undefined;
  /** False where the deployment keeps no ended sessions (it lacks the list: 404, 405). */
  kept: boolean;
}

/**
 * GET /stream?state=ended (CONTRACT §22, an extension): sessions that ended or failed, newest first, each with
 * when it ended, how long it lasted and why. `user` names one person (an admin's filter).
 */
export async function getEndedSessions(
  { offset, limit, user }: { offset: number; limit: number; user?: string },
  signal?: AbortSignal,
): Promise<EndedPage> {
  try {
    const { data } = await unwrap(
      getApiClients().stream.GET('/stream', {
        params: { query: { state: 'ended', offset, limit, ...(user ? { user } : {}) } },
        signal,
      }),
    );
    const list = normaliseList<Session>(data);
    const more = list.items.length > 0 && offset + list.items.length < list.count;
    return {
      // A deployment without the extension ignores `state` and lists what runs: none of that has ended.
      items: list.items.filter((s) => s.ended_at !== undefined).map(normaliseSession),
      next: more ? offset + list.items.length : undefined,
      kept: true,
    };
  } catch (error) {
    if (isApiError(error) && (error.status === 404 || error.status === 405))
      return { items: [], next: undefined, kept: false };
    throw error;
  }
}
