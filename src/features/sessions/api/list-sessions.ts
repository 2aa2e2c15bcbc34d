import { ApiError, type Session } from '../../../lib/api-client';
import { getSession } from '../../../lib/api/get-session';
import { getSessions } from '../../../lib/api/get-sessions';
import { mapLimit } from '../../../lib/limit';
import { forgetSession, getStartedSessions } from '../../../lib/session-history';

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
 * The service's list of sessions. Where a deployment lacks GET /stream (404, 405), the sessions
 * this browser started, each checked with GET /stream/{id}.
 */
export async function listSessions(signal?: AbortSignal): Promise<SessionsResult> {
  try {
    const items = await getSessions(signal);
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
