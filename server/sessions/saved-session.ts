/**
 * What of a session is written to the state file, how it is encoded there, and the check of what is
 * read back.
 */
import type { SessionRecord } from './types.ts';
import type { SessionRequest } from '../runners/runner.ts';

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
  /** What it was extended by (ms beyond its profile's initial lifetime; POST /stream/{id}/extend). */
  extendedMs?: number;
  /** Its sharing was stopped then (ms since the epoch): watch tickets issued until then are refused. */
  watchCutoffMs?: number;
}

/** A session as far as saving it goes. */
interface Saving {
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
 * Encodes a session for the state file, afresh each time: keeping the text of queued sessions saved
 * about 4 ms per compaction with 1,000 of them queued, and a compaction runs when writes pause or once
 * per 4 MiB of journal, so no person waits for it.
 */
export function sessionEncoder<S extends Saving>(): (session: S) => string {
  return (session) => JSON.stringify(session.persisted());
}
