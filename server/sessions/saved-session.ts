/**
 * What of a session is written to the state file, how it is encoded there, and the check of what is
 * read back.
 */
import type { SessionRecord, SessionRequest } from './types.ts';

/** Enough to rebuild a session after a crash of the service. */
export interface PersistedSession {
  record: SessionRecord;
  /** Owner, application, version, profile with its settings, launch and arguments. */
  request: SessionRequest;
  /** Creation order, which is also queue order. */
  seq: number;
  /** When the application was started (epoch ms): start-up timeout and lifetime count from here. */
  startedAt?: number;
  /** Start time of the process (see process-group.ts), so that a reused pid is not taken for it. */
  startTicks?: string;
  /** A warm application not yet claimed (CONTRACT §16). */
  warm?: boolean;
  /** Its sharing was stopped then (ms since the epoch): watch tickets issued until then are refused. */
  watchCutoffMs?: number;
}

/** A session as far as saving it goes: its saved form, and whether it waits in the queue. */
interface Saving {
  readonly phase: string;
  readonly watchCutoffMs?: number;
  persisted(): PersistedSession;
}

/** A light shape check of what came from disk, so that one bad session cannot half-restore. */
export function isPersistedSession(value: unknown): value is PersistedSession {
  const saved = value as Partial<PersistedSession> | null;
  const record = saved?.record;
  const request = saved?.request;
  return (
    typeof saved?.seq === 'number' &&
    typeof record?.id === 'string' &&
    ['pending', 'ready', 'failed'].includes(record.state) &&
    typeof request?.app?.name === 'string' &&
    typeof request.version === 'string' &&
    typeof request.profile?.settings?.startupTimeoutMs === 'number' &&
    typeof request.arguments === 'object'
  );
}

/**
 * Encodes sessions for the state file, keeping the text of each queued one: a queued session does
 * not change until it starts, and most sessions in a busy state are queued.
 */
export function sessionEncoder<S extends Saving>(): (session: S) => string {
  const encoded = new WeakMap<S, string>();
  return (session) => {
    // A stop of sharing is the one change of a queued session: its text is made afresh from then on.
    if (session.phase !== 'queued' || session.watchCutoffMs !== undefined) {
      encoded.delete(session);
      return JSON.stringify(session.persisted());
    }
    let text = encoded.get(session);
    if (text === undefined) encoded.set(session, (text = JSON.stringify(session.persisted())));
    return text;
  };
}
