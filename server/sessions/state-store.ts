/**
 * Durable session state. Each save appends the whole state, as one line, to a journal
 * (`sessions.json.journal`) and syncs it: one data sync, about a tenth of the cost of replacing a file,
 * which is what lets POST /stream answer only once its session is on disk. When saves pause, or the
 * journal grows past `compactBytes`, the state file (`sessions.json`) is replaced atomically, its copy
 * (`.bak`) written the same way, and the journal emptied. Every state carries a generation, and
 * `load()` takes the newest whole one of the three, so that a crash at any moment (a torn last line
 * included) or a file damaged from outside (a torn copy, an editor) still leaves a good state.
 */
import { mkdir, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import {
  JournalAppender,
  lastJournalState,
  parseState,
  truncateFile,
  writeAtomically,
  type StateFile,
} from './state-file.ts';

export type { StateFile } from './state-file.ts';

/** What `load()` found. */
export interface LoadResult<T> {
  sessions: T[];
  /** Where the state came from; `none` when there was no usable file (first start, or all damaged). */
  source: 'main' | 'backup' | 'journal' | 'none';
  /** Reasons a file could not be used, for the log. */
  problems: string[];
}

/** How the store writes: when the journal is folded into the state file, how an item is encoded. */
export interface StoreOptions<S> {
  /** Journal size that makes the next write fold it in, however busy saves are (default 4 MiB). */
  compactBytes: number;
  /** Quiet time after the last save before the journal is folded in (default 200 ms). */
  idleMs: number;
  /**
   * One item as JSON (default `JSON.stringify`). Lets the caller keep the text of items that do not
   * change from one save to the next, so that a save costs in proportion to what changed.
   */
  encode: (item: S) => string;
}

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}

/** The durable list of sessions in the data directory: saves take items of type S, load returns T. */
export class StateStore<T, S = T> {
  readonly file: string;
  readonly backup: string;
  readonly journal: string;
  private readonly options: StoreOptions<S>;
  /** The newest snapshot asked for, taken when the next write starts. */
  private latest: (() => S[]) | undefined;
  /** Callers waiting for the next write to start and complete. */
  private waiting: Waiter[] = [];
  /** The write loop while it runs; `flush()` waits on it. */
  private running: Promise<void> | undefined;
  private generation = 0;
  /** The newest state in the journal, while the state file does not hold it yet. */
  private uncompacted: string | undefined;
  private journalBytes = 0;
  /** Whether the journal's directory entry is known to be on disk. */
  private journalKnown = false;
  /** A failed append may have left half a line: the next one starts on a line of its own. */
  private tornTail = false;
  private compactAt: number;
  private compactNow = false;
  private compactTimer: NodeJS.Timeout | undefined;
  private readonly journalFile: JournalAppender;

  constructor(dataDir: string, name = 'sessions.json', options: Partial<StoreOptions<S>> = {}) {
    this.file = path.join(dataDir, name);
    this.backup = `${this.file}.bak`;
    this.journal = `${this.file}.journal`;
    this.journalFile = new JournalAppender(this.journal);
    this.options = {
      compactBytes: 4 * 1024 * 1024,
      idleMs: 200,
      encode: (item) => JSON.stringify(item),
      ...options,
    };
    this.compactAt = this.options.compactBytes;
  }

  /** Reads the state; never throws on a missing, torn or foreign file (a damaged file is set aside). */
  async load(): Promise<LoadResult<T>> {
    await mkdir(path.dirname(this.file), { recursive: true });
    const problems: string[] = [];
    let best: { state: StateFile<T>; source: LoadResult<T>['source'] } | undefined;
    const consider = (state: StateFile<T>, source: LoadResult<T>['source']) => {
      const generation = state.generation ?? 0;
      this.generation = Math.max(this.generation, generation);
      // On a tie the earlier source wins: the state file before its copy, both before the journal.
      if (!best || generation > (best.state.generation ?? 0)) best = { state, source };
    };
    for (const [source, file] of [
      ['main', this.file],
      ['backup', this.backup],
    ] as const) {
      const text = await this.read(file, problems);
      if (text === undefined) continue;
      try {
        consider(parseState<T>(text), source);
      } catch (error) {
        problems.push(`${file}: ${(error as Error).message}`);
        // Keep the damaged file for a person to look at, out of the way of the next save.
        await rename(file, `${file}.corrupt-${Date.now()}`).catch(() => undefined);
      }
    }
    const journal = await this.read(this.journal, problems);
    if (journal !== undefined) {
      this.journalKnown = true;
      this.journalBytes = Buffer.byteLength(journal);
      this.tornTail = journal.length > 0 && !journal.endsWith('\n');
      const state = lastJournalState<T>(journal);
      if (state) consider(state, 'journal');
      else if (journal.trim()) problems.push(`${this.journal}: no whole state in it`);
    }
    return best
      ? { sessions: best.state.sessions, source: best.source, problems }
      : { sessions: [], source: 'none', problems };
  }

  /**
   * Saves a snapshot. The promise resolves once the first write that starts after this call is on
   * disk (group commit: the calls made while a write is under way share the next one, which takes the
   * newest snapshot), so a caller waits for at most two writes however long saves keep coming. It
   * rejects when that write fails.
   */
  save(snapshot: () => S[]): Promise<void> {
    this.latest = snapshot;
    const promise = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    this.running ??= this.drain();
    return promise;
  }

  /** Resolves when every save asked for so far is on disk (or has failed), in the state file too. */
  async flush(): Promise<void> {
    this.compactNow = true;
    this.running ??= this.drain();
    while (this.running) await this.running;
  }

  private async read(file: string, problems: string[]): Promise<string | undefined> {
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        problems.push(`${file}: ${(error as Error).message}`);
      return undefined;
    }
  }

  private async drain(): Promise<void> {
    // Never finish in the turn that started the loop: the caller stores this promise in `running`
    // after the call returns, and the `finally` below must clear it after that, not before.
    await Promise.resolve();
    try {
      const more = () => this.waiting.length > 0 || (this.compactNow && this.uncompacted !== undefined);
      for (;;) {
        if (!more()) {
          // The journal stays open while saves keep coming; closed once they pause. Saves asked for
          // while it closes are written by this loop, since `running` is still set.
          await this.journalFile.close();
          if (!more()) break;
        }
        if (this.waiting.length === 0) {
          await this.compact();
          continue;
        }
        const batch = this.waiting;
        const snapshot = this.latest as () => S[];
        this.waiting = [];
        this.latest = undefined;
        try {
          // The layout of StateFile, with each item encoded by the caller.
          const head = { version: 1, generation: ++this.generation, savedAt: new Date().toISOString() };
          const items = snapshot().map(this.options.encode).join(',');
          const text = `${JSON.stringify(head).slice(0, -1)},"sessions":[${items}]}`;
          // Encoded once: the write and the journal's size both take the bytes.
          const line = Buffer.from(`${this.tornTail ? '\n' : ''}${text}\n`);
          this.tornTail = true;
          await this.journalFile.append(line, !this.journalKnown);
          this.tornTail = false;
          this.journalKnown = true;
          this.journalBytes += line.length;
          this.uncompacted = text;
        } catch (error) {
          for (const waiter of batch) waiter.reject(error as Error);
          continue;
        }
        for (const waiter of batch) waiter.resolve();
        if (this.journalBytes >= this.compactAt) await this.compact();
      }
    } finally {
      // In the same turn as the last check of `waiting`, so a save cannot slip between the two.
      this.running = undefined;
      this.compactNow = false;
      if (this.uncompacted !== undefined && !this.compactTimer) {
        this.compactTimer = setTimeout(() => {
          this.compactTimer = undefined;
          this.compactNow = true;
          this.running ??= this.drain();
        }, this.options.idleMs);
        // The journal already holds the state: folding it in never keeps the process alive.
        this.compactTimer.unref();
      }
    }
  }

  /** Folds the journal into the state file and its copy; a failure leaves the journal as it is. */
  private async compact(): Promise<void> {
    const text = this.uncompacted;
    this.compactNow = false;
    if (text === undefined) return;
    try {
      await writeAtomically(this.file, `${text}\n`);
      this.uncompacted = undefined;
      await writeAtomically(this.backup, `${text}\n`).catch(() => undefined);
      await truncateFile(this.journal);
      this.journalBytes = 0;
      this.compactAt = this.options.compactBytes;
    } catch {
      // The journal still holds everything; try again once it has grown by as much again.
      this.compactAt = this.journalBytes + this.options.compactBytes;
    }
  }
}
