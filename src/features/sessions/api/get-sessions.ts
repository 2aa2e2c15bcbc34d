import {
  ApiError,
  getApiClients,
  normaliseList,
  normaliseSession,
  unwrap,
  type Session,
} from '../../../lib/api-client';
import { mapLimit } from '../../../lib/limit';
import { forgetSession, getStartedSessions } from '../../../lib/session-history';
import { getSession } from './get-session';

/** A session as the sessions page lists it; `gone` when it failed (410) and only its reason is left. */
export interface SessionRow {
  id: string;
  session: Session | undefined;
  failure: string | undefined;
}

/** The sessions, and whether they came from the service's list or from this browser's memory. */
export interface SessionsResult {
  source: 'service' | 'browser';
  rows: SessionRow[];
}

async function fromBrowser(): Promise<SessionRow[]> {
  const rows = await mapLimit(getStartedSessions(), 6, async ({ id }): Promise<SessionRow | undefined> => {
    try {
      return { id, session: await getSession(id), failure: undefined };
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        forgetSession(id);
        return undefined;
      }
      if (error instanceof ApiError && error.status === 410)
        return { id, session: undefined, failure: error.message };
      throw error;
    }
  });
  return rows.filter((r): r is SessionRow => r !== undefined);
}

/**
 * GET /stream (an extension, so up to 500 a page). Where a deployment lacks it (404, 405), the sessions
 * this browser started, each checked with GET /stream/{id}.
 */
export async function getSessions(signal?: AbortSignal): Promise<SessionsResult> {
  try {
    const { data } = await unwrap(
      getApiClients().stream.GET('/stream', { params: { query: { offset: 0, limit: 500 } }, signal }),
    );
    const items = normaliseList<Session>(data).items.map(normaliseSession);
    return {
      source: 'service',
      rows: items.map((session) => ({ id: session.id, session, failure: undefined })),
    };
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 405)) {
      return { source: 'browser', rows: await fromBrowser() };
    }
    throw error;
  }
}
