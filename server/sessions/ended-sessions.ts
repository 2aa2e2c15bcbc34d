/**
 * Past sessions (CONTRACT §22): every session that ended or failed, kept at least `retentionMs` (30 days) and
 * at most `limit` of them, in `<data dir>/ended-sessions.jsonl`, one line each, apart from the state of
 * running sessions (state/state-file-repository.ts), which they never touch. A line is appended as a session
 * ends; the file is rewritten whole at start and whenever it holds many lines no longer kept.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { LineFile } from '../state/line-file.ts';
import type { EndCause, EndedSession, SessionRecord } from './types.ts';

/** Ended sessions are shown this long at least. */
/** The past record of a session that ended: who, what, when, and how it ended (`by`: the admin who ended it). */
export function endedRecord(
  record: SessionRecord,
  ended: { at: string; cause: EndCause; reason: string; by?: string },
): EndedSession {
  return {
    id: record.id,
    owner: record.owner,
    appId: record.appId,
    version: record.version,
    profileId: record.profileId,
    createdAt: record.createdAt,
    endedAt: ended.at,
    cause: ended.cause,
    reason: ended.reason,
    ...(ended.by === undefined ? {} : { endedBy: ended.by }),
  };
}

export const ENDED_RETENTION_MS = 30 * 24 * 3_600_000;
/** At most this many are kept (the oldest go first): about 6 MB on disk, as many records in memory. */
export const ENDED_LIMIT = 20_000;
/** The file is rewritten once it holds this many lines more than are kept. */
const STALE_LINES = 1_000;

export interface EndedSessionsOptions {
  retentionMs?: number;
  limit?: number;
  now?: () => number;
  onError?: (error: Error) => void;
}

/** How long it lasted, in whole seconds, from its request to its end. */
export function lastedSeconds(ended: EndedSession): number {
  return Math.max(0, Math.round((Date.parse(ended.endedAt) - Date.parse(ended.createdAt)) / 1000));
}

function isEnded(value: unknown): value is EndedSession {
  const ended = value as Partial<EndedSession> | null;
  return (
    typeof ended?.id === 'string' &&
    typeof ended.owner === 'string' &&
    typeof ended.appId === 'string' &&
    typeof ended.version === 'string' &&
    typeof ended.profileId === 'string' &&
    typeof ended.createdAt === 'string' &&
    typeof ended.cause === 'string' &&
    typeof ended.reason === 'string' &&
    !Number.isNaN(Date.parse(ended.endedAt ?? ''))
  );
}

export class EndedSessions {
  /** In the order they ended, oldest first. */
  private items: EndedSession[] = [];
  /** Lines in the file, kept or not. */
  private lines = 0;
  private readonly out: LineFile;
  private readonly retentionMs: number;
  private readonly limit: number;
  private readonly now: () => number;

  constructor(dataDir: string, options: EndedSessionsOptions = {}) {
    this.out = new LineFile(
      path.join(dataDir, 'ended-sessions.jsonl'),
      options.onError ? { onError: options.onError } : {},
    );
    this.retentionMs = options.retentionMs ?? ENDED_RETENTION_MS;
    this.limit = options.limit ?? ENDED_LIMIT;
    this.now = options.now ?? Date.now;
  }

  get file(): string {
    return this.out.file;
  }

  /** Reads what earlier runs kept, drops what is too old or beyond the limit, and rewrites the file so. */
  async load(): Promise<void> {
    const text = await readFile(this.out.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    const lines = text.split('\n').filter((line) => line !== '');
    this.items = lines.flatMap((line) => {
      try {
        const value: unknown = JSON.parse(line);
        return isEnded(value) ? [value] : [];
      } catch {
        return []; // torn by a crash mid-write
      }
    });
    this.lines = lines.length;
    this.prune();
    if (this.lines !== this.items.length) this.rewrite();
  }

  add(ended: EndedSession): void {
    this.items.push(ended);
    this.out.append(JSON.stringify(ended));
    this.lines++;
    this.prune();
  }

  /** Of `owner` (everyone's when null), newest first. */
  list(owner: string | null, offset: number, limit: number): { count: number; items: EndedSession[] } {
    this.prune();
    const mine: EndedSession[] = [];
    for (let i = this.items.length - 1; i >= 0; i--) {
      const ended = this.items[i];
      if (ended && (owner === null || ended.owner === owner)) mine.push(ended);
    }
    return { count: mine.length, items: mine.slice(offset, offset + limit) };
  }

  /** Resolves once every line so far is written. */
  flush(): Promise<void> {
    return this.out.flush();
  }

  /** Drops the oldest past the limit and those ended before the retention; rewrites a file that holds many. */
  private prune(): void {
    const cutoff = this.now() - this.retentionMs;
    let drop = Math.max(0, this.items.length - this.limit);
    while (drop < this.items.length && Date.parse(this.items[drop]?.endedAt ?? '') < cutoff) drop++;
    if (drop > 0) this.items.splice(0, drop);
    if (this.lines - this.items.length >= STALE_LINES) this.rewrite();
  }

  private rewrite(): void {
    this.lines = this.items.length;
    void this.out.replace(this.items.map((ended) => JSON.stringify(ended)));
  }
}
