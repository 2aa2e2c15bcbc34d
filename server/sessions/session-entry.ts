/**
 * What the manager keeps about one session, what of it is written to disk, and the messages a person
 * reads in `status.message`.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { SessionRecord, SessionRequest } from './types.ts';

/**
 * Finer than the API's states: `queued` and `starting` are both `pending` to callers; `ending` keeps its
 * GPU until the process is gone.
 */
export type Phase = 'queued' | 'starting' | 'ready' | 'ending' | 'failed';

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
}

/** One session as the manager holds it in memory. */
export interface Entry extends PersistedSession {
  phase: Phase;
  /** Our own child; absent for an application adopted after a restart (it is watched by polling). */
  child?: ChildProcess;
  adopted: boolean;
  /** Ports allocated and process spawned (or failed to); `end` waits for it before it stops anything. */
  launching?: Promise<void>;
  ending?: Promise<void>;
  /** Since when the application has reported no viewer. */
  idleSince?: number;
  /** Since when a ready application has not answered its health check. */
  unhealthySince?: number;
  probing: boolean;
  /** Launches so far; an exit or a readiness watch of an earlier launch is ignored. */
  attempt?: number;
  /** Launches started again because another program took a port first. */
  portRetries?: number;
  forgetTimer?: NodeJS.Timeout;
}

/** A new queued session. */
export function newEntry(request: SessionRequest, seq: number): Entry {
  const record: SessionRecord = {
    id: randomUUID(),
    owner: request.owner,
    appId: request.app.id,
    appName: request.app.name,
    version: request.version,
    profileId: request.profile.id,
    arguments: request.arguments,
    state: 'pending',
    message: '',
    createdAt: new Date().toISOString(),
  };
  return { record, request, seq, phase: 'queued', adopted: false, probing: false };
}

/** A light shape check of what came from disk, so that one bad entry cannot half-restore. */
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

/** The part of an entry that is written to disk. */
export function persisted(entry: Entry): PersistedSession {
  const { record, request, seq, startedAt, startTicks } = entry;
  return { record, request, seq, startedAt, startTicks };
}

/**
 * The record callers get: a copy, so that they cannot change the manager's. `arguments` is shared:
 * nothing changes it after create(). A queued session's message is made here from its place in the
 * queue, rather than rewritten on every record each time the queue moves.
 */
export function recordOf(entry: Entry, queue: readonly Entry[] | ReadonlyMap<Entry, number>): SessionRecord {
  const { record } = entry;
  const result = { ...record };
  if (record.ports) result.ports = { ...record.ports };
  if (entry.phase === 'queued') {
    // A list of many records passes the places of all queued entries at once, rather than search the queue for each.
    // Searched from the back: the record most asked for is that of a session just queued.
    const ahead =
      queue instanceof Map ? (queue.get(entry) ?? -1) : (queue as readonly Entry[]).lastIndexOf(entry);
    result.message = waitingMessage(Math.max(0, ahead));
  }
  return result;
}

/**
 * Encodes entries for the state file, keeping the text of each queued one: a queued session does
 * not change until it starts, and most sessions in a busy state are queued.
 */
export function entryEncoder(): (entry: Entry) => string {
  const encoded = new WeakMap<Entry, string>();
  return (entry) => {
    if (entry.phase !== 'queued') {
      encoded.delete(entry);
      return JSON.stringify(persisted(entry));
    }
    let text = encoded.get(entry);
    if (text === undefined) encoded.set(entry, (text = JSON.stringify(persisted(entry))));
    return text;
  };
}

/** "USD Viewer 1.2.0" */
export function label(request: SessionRequest): string {
  return `${request.app.name} ${request.version}`;
}

/** Status of a queued session. */
export function waitingMessage(ahead: number): string {
  return `Waiting for a free GPU: ${ahead} ${ahead === 1 ? 'session' : 'sessions'} ahead`;
}

/** Status of a session whose application is starting. */
export function startingMessage(request: SessionRequest): string {
  return `Starting ${label(request)}`;
}

/** Status of a ready session. */
export function readyMessage(request: SessionRequest): string {
  return `${label(request)} is ready`;
}

/** Why a session failed when its application exited. */
export function exitMessage(
  request: SessionRequest,
  code: number | null,
  signal: NodeJS.Signals | null,
  beforeReady: boolean,
): string {
  const how = code !== null ? `exited with code ${code}` : `was stopped by ${signal ?? 'a signal'}`;
  return `${label(request)} ${how}${beforeReady ? ' before it was ready' : ''}`;
}

/** Why a session failed when its application was not ready in time. */
export function timeoutMessage(request: SessionRequest): string {
  const seconds = Math.round(request.profile.settings.startupTimeoutMs / 100) / 10;
  return `${label(request)} was not ready within ${seconds} s`;
}
