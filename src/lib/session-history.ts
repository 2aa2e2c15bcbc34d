/**
 * The sessions this browser started, remembered in localStorage. Deployments without `GET /stream`
 * (it is an extension) still get a sessions page from it, and it gives every session an age.
 */

/** What the portal remembers about a session it started. */
export interface StartedSession {
  id: string;
  app: string;
  version: string;
  profile: string;
  /** Epoch milliseconds. */
  startedAt: number;
}

/** localStorage key of the remembered sessions. */
export const HISTORY_KEY = 'streamgate.sessions';
const MAX = 100;

/** The remembered sessions, newest first. */
export function getStartedSessions(): StartedSession[] {
  try {
    const parsed: unknown = JSON.parse(globalThis.localStorage?.getItem(HISTORY_KEY) ?? '[]');
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (s): s is StartedSession =>
        s !== null && typeof s === 'object' && typeof s.id === 'string' && typeof s.startedAt === 'number',
    );
  } catch {
    return [];
  }
}

/** Remembers a session (replacing an earlier entry with the same id). */
export function rememberSession(session: StartedSession): void {
  const rest = getStartedSessions().filter((s) => s.id !== session.id);
  globalThis.localStorage?.setItem(HISTORY_KEY, JSON.stringify([session, ...rest].slice(0, MAX)));
}

/** Forgets a session (it was ended or no longer exists). */
export function forgetSession(id: string): void {
  const rest = getStartedSessions().filter((s) => s.id !== id);
  globalThis.localStorage?.setItem(HISTORY_KEY, JSON.stringify(rest));
}
