/**
 * The audit log (CONTRACT §22): one JSON line per event in `<data dir>/audit.jsonl` (`time`, `user`, `action`,
 * `session`, `detail`), only ever appended, readable by the service's user alone, rotated by size
 * (`audit.jsonl.1` the newest older file ... `audit.jsonl.<keep>`), and so kept across restarts. Recording
 * never waits for the disk: lines are written in the background, in order, and `close()` (a clean stop)
 * waits for every one. What a line may hold is bounded and never a secret (audit-line.ts).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Audit, AuditEvent } from './audit.ts';
import { lineOf, matches, parseLine, type AuditLine, type AuditQuery } from './audit-line.ts';
import { LineFile } from '../state/line-file.ts';

/** The file is rotated before it would pass this size. */
export const AUDIT_ROTATE_BYTES = 10 * 1024 * 1024;
/** Older files kept by the rotation: with the current one, up to 60 MB of history. */
export const AUDIT_KEEP_FILES = 5;
export const AUDIT_FILE = 'audit.jsonl';

export interface AuditLogOptions {
  maxBytes?: number;
  keep?: number;
  /** The clock that stamps each line (tests pass their own). */
  now?: () => Date;
  /** Told of each failed write: its lines are lost, and the service says so in its own log. */
  onError?: (error: Error) => void;
}

/** What a read answers: the newest lines that match, and whether older ones matched too. */
export interface AuditPage {
  items: AuditLine[];
  truncated: boolean;
}

export class AuditLog implements Audit {
  private readonly out: LineFile;
  private readonly now: () => Date;

  /** The directory must exist when the first line is written (the session manager makes it at start). */
  constructor(dataDir: string, options: AuditLogOptions = {}) {
    this.now = options.now ?? (() => new Date());
    this.out = new LineFile(path.join(dataDir, AUDIT_FILE), {
      maxBytes: options.maxBytes ?? AUDIT_ROTATE_BYTES,
      keep: options.keep ?? AUDIT_KEEP_FILES,
      ...(options.onError ? { onError: options.onError } : {}),
    });
  }

  /** The current file, then the rotated ones, newest first. */
  get files(): string[] {
    return this.out.files;
  }

  record(event: AuditEvent): void {
    this.out.append(JSON.stringify(lineOf(event, this.now())));
  }

  /**
   * The newest lines that match `query`, newest first, from the current file and the rotated ones; lines
   * recorded before the call are among them. A torn or foreign line is passed over.
   */
  read(query: AuditQuery): Promise<AuditPage> {
    return this.out.run(async () => {
      const items: AuditLine[] = [];
      for (const file of this.out.files) {
        const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return '';
          throw error;
        });
        const lines = text.split('\n');
        for (let i = lines.length - 1; i >= 0; i--) {
          const line = parseLine(lines[i] ?? '');
          if (!line || !matches(line, query)) continue;
          if (items.length === query.limit) return { items, truncated: true };
          items.push(line);
        }
      }
      return { items, truncated: false };
    });
  }

  /** Resolves once every line recorded so far is written. */
  flush(): Promise<void> {
    return this.out.flush();
  }

  /** A clean stop: every line recorded so far is written. Lines recorded later are still written. */
  close(): Promise<void> {
    return this.flush();
  }
}
