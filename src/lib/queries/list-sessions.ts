import { ApiError, type Session } from '../api-client';
import { getSession } from '../api/get-session';
import { getSessions } from '../api/get-sessions';
import { launchLabel } from '../launch-label';
import { mapLimit } from '../limit';
import { forgetSession, getStartedSessions, type StartedSession } from '../session-history';
import type { LaunchIds } from './use-launch-names';

/** A session as the sessions page lists it; `failure` when it failed (410) and only its reason is left. */
export interface SessionRow {
  id: string;
  session: Session | undefined;
  failure: string | undefined;
  /** "usd-viewer 1.2.0 (default)", where the service or this browser knows it. */
  launched: string | undefined;
  /** The same, as ids, for the catalog's names (`useLaunchNames`). */
  ids: LaunchIds;
  /** Epoch milliseconds, where known. */
  startedAt: number | undefined;
  /** Who started it, where the service says. */
  user: string | undefined;
}

/**
 * What the page says about a session, from the service's own fields (any browser started it) or else from
 * this browser's memory: deployments that lack the fields still list what this browser launched.
 */
function rowOf(
  id: string,
  session: Session | undefined,
  failure: string | undefined,
  local: StartedSession | undefined,
): SessionRow {
  const app = session?.app ?? local?.app;
  const version = session?.version ?? local?.version;
  const profile = session?.profile ?? local?.profile;
  const created = session?.created_at ? Date.parse(session.created_at) : NaN;
  return {
    id,
    session,
    failure,
    launched: launchLabel(app, version, profile),
    ids: { app, version, profile },
    startedAt: Number.isNaN(created) ? local?.startedAt : created,
    user: session?.user,
  };
}

/** The sessions, and whether they came from the service's list or from this browser's memory. */
export interface SessionsResult {
  source: 'service' | 'browser';
  rows: SessionRow[];
}

async function fromBrowser(): Promise<SessionRow[]> {
  const rows = await mapLimit(getStartedSessions(), 6, async (local): Promise<SessionRow | undefined> => {
    const { id } = local;
    try {
      return rowOf(id, await getSession(id), undefined, local);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        forgetSession(id);
        return undefined;
      }
      if (error instanceof ApiError && error.status === 410)
        return rowOf(id, undefined, error.message, local);
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
    const started = new Map(getStartedSessions().map((s) => [s.id, s]));
    return {
      source: 'service',
      rows: items.map((session) => rowOf(session.id, session, undefined, started.get(session.id))),
    };
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 405)) {
      return { source: 'browser', rows: await fromBrowser() };
    }
    throw error;
  }
}
