/**
 * Durable session state. Each save appends one line to a journal (`sessions.json.journal`) and syncs
 * it: one data sync, about a tenth of the cost of replacing a file, which is what lets POST /stream
 * answer only once its session is on disk. A line holds only what changed since the line before it:
 * the items saved since, by id, each as it is now or, when it is gone, its id. So a save costs in
 * proportion to the change, not to the state. The first line of a store, and the first after a failed
 * write, hold the whole state instead: the store cannot tell then what the disk holds. When saves
 * pause, or the journal grows past `compactBytes`, the state file (`sessions.json`) is replaced
 * atomically with the whole state, its copy (`.bak`) written the same way, and the journal emptied.
 * Every line and file carries a generation, one more with each line: `load()` takes the newest whole
 * state of the file and its copy and applies the journal lines that follow it, so that a crash at any
 * moment (a torn last line included) or a file damaged from outside (a torn copy, an editor) still
 * leaves a good state.
 */
import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_DIR_MODE } from './private-files.ts';
import {
  itemsById,
  JournalAppender,
  parseState,
  readIfThere,
  replayJournal,
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

/** What the store saves and how it writes: saves take items of type S, `load()` returns items of type T. */
export interface StoreOptions<T, S> {
  /** The current items by id, read when a write starts. */
  items: () => ReadonlyMap<string, S>;
  /** The id of a loaded item: the key its saved form has in `items`. */
  key: (item: T) => string;
  /** Journal size that makes the next write fold it in, however busy saves are (default 4 MiB). */
  compactBytes: number;
  /** Quiet time after the last save before the journal is folded in (default 200 ms). */
  idleMs: number;
  /**
   * One item as JSON (default `JSON.stringify`). Lets the caller keep the text of items that do not
   * change, which whole states (the first line, and each fold) write again.
   */
  encode: (item: S) => string;
  /** Told of each write that failed, once (a `save` also rejects); the default ignores it. */
  onWriteError: (error: Error) => void;
}

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}

/** The durable list of sessions in the data directory. */
export class StateStore<T, S = T> {
  readonly file: string;
  readonly backup: string;
  readonly journal: string;
  private readonly options: StoreOptions<T, S>;
  /** Ids saved since the last line was taken: the next line's changes. */
  private dirty = new Set<string>();
  /** Whether the next line holds the whole state rather than the changes. */
  private whole = true;
  /** Whether changes were asked to be written since the last line was taken. */
  private pending = false;
  /** Callers waiting for the next write to start and complete. */
  private waiting: Waiter[] = [];
  /** The write loop while it runs; `flush()` waits on it. */
  private running: Promise<void> | undefined;
  /** The generation of the last line. */
  private generation = 0;
  /** Whether the journal holds lines that the state file does not. */
  private uncompacted = false;
  private journalBytes = 0;
  /** Whether the journal's directory entry is known to be on disk. */
  private journalKnown = false;
  /** A failed append may have left half a line: the next one starts on a line of its own. */
  private tornTail = false;
  private compactAt: number;
  private compactNow = false;
  private compactTimer: NodeJS.Timeout | undefined;
  private readonly journalFile: JournalAppender;

  constructor(
    dataDir: string,
    options: Pick<StoreOptions<T, S>, 'items' | 'key'> & Partial<StoreOptions<T, S>>,
    name = 'sessions.json',
  ) {
    this.file = path.join(dataDir, name);
    this.backup = `${this.file}.bak`;
    this.journal = `${this.file}.journal`;
    this.journalFile = new JournalAppender(this.journal);
    this.options = {
      compactBytes: 4 * 1024 * 1024,
      idleMs: 200,
      encode: (item) => JSON.stringify(item),
      onWriteError: () => {},
      ...options,
    };
    this.compactAt = this.options.compactBytes;
  }

  /** Reads the state; never throws on a missing, torn or foreign file (a damaged file is set aside). */
  async load(): Promise<LoadResult<T>> {
    await mkdir(path.dirname(this.file), { recursive: true, mode: PRIVATE_DIR_MODE });
    const problems: string[] = [];
    let base: { state: StateFile<T>; source: LoadResult<T>['source'] } | undefined;
    for (const [source, file] of [
      ['main', this.file],
      ['backup', this.backup],
    ] as const) {
      const text = await readIfThere(file, problems);
      if (text === undefined) continue;
      try {
        const state = parseState<T>(text);
        const generation = state.generation ?? 0;
        this.generation = Math.max(this.generation, generation);
        // On a tie the state file wins over its copy.
        if (!base || generation > (base.state.generation ?? 0)) base = { state, source };
      } catch (error) {
        problems.push(`${file}: ${(error as Error).message}`);
        // Keep the damaged file for a person to look at, out of the way of the next save.
        await rename(file, `${file}.corrupt-${Date.now()}`).catch(() => undefined);
      }
    }
    const state = {
      items: itemsById(base?.state.sessions ?? [], this.options.key),
      generation: base?.state.generation ?? 0,
    };
    let source = base?.source ?? 'none';
    const journal = await readIfThere(this.journal, problems);
    if (journal !== undefined) {
      this.journalKnown = true;
      this.journalBytes = Buffer.byteLength(journal);
      this.tornTail = journal.length > 0 && !journal.endsWith('\n');
      const replay = replayJournal(state, journal, this.options.key);
      this.generation = Math.max(this.generation, replay.newest);
      problems.push(...replay.problems.map((problem) => `${this.journal}: ${problem}`));
      if (replay.applied > 0) source = 'journal';
    }
    // What the caller saves next need not be what was read: the next line holds it all.
    this.whole = true;
    return { sessions: [...state.items.values()], source, problems };
  }

  /**
   * Saves the items with these ids as they are when the next write starts (a put when present in
   * `items`, a removal when not). The promise resolves once the first write that starts after this
   * call is on disk (group commit: the calls made while a write is under way share the next one), so
   * a caller waits for at most two writes however long saves keep coming. It rejects when that write
   * fails.
   */
  save(ids: string | readonly string[] | 'all'): Promise<void> {
    const promise = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    this.note(ids);
    return promise;
  }

  /** Saves the whole state, as `save` does one change: for a caller whose items may differ from the disk. */
  saveAll(): Promise<void> {
    return this.save('all');
  }

  /**
   * Marks items changed, as `save` does, for a caller that need not wait: the next write takes them,
   * and a failure reaches `onWriteError` only. It costs no promise, which matters on busy paths.
   */
  note(ids: string | readonly string[] | 'all'): void {
    if (ids === 'all') this.whole = true;
    else if (typeof ids === 'string') this.dirty.add(ids);
    else for (const id of ids) this.dirty.add(id);
    this.pending = true;
    this.running ??= this.drain();
  }

  /** Resolves when every save asked for so far is on disk (or has failed), in the state file too. */
  async flush(): Promise<void> {
    this.compactNow = true;
    this.running ??= this.drain();
    while (this.running) await this.running;
  }

  /**
   * One line in the layout of StateFile (`all`) or of StateDelta (the ids that changed), with the
   * items as they are now, each encoded by the caller.
   */
  private encodeLine(generation: number, changed: ReadonlySet<string> | 'all'): string {
    const { items: current, encode } = this.options;
    const items = current();
    const head = JSON.stringify({ version: 1, generation, savedAt: new Date().toISOString() }).slice(0, -1);
    if (changed === 'all') return `${head},"sessions":[${Array.from(items.values(), encode).join(',')}]}`;
    const put: string[] = [];
    const del: string[] = [];
    for (const id of changed) {
      const item = items.get(id);
      if (item === undefined) del.push(id);
      else put.push(encode(item));
    }
    return `${head},"put":[${put.join(',')}],"del":${JSON.stringify(del)}}`;
  }

  private async drain(): Promise<void> {
    // Never finish in the turn that started the loop: the caller stores this promise in `running`
    // after the call returns, and the `finally` below must clear it after that, not before.
    await Promise.resolve();
    try {
      const more = () => this.pending || (this.compactNow && this.uncompacted);
      for (;;) {
        if (!more()) {
          // The journal stays open while saves keep coming; closed once they pause. Saves asked for
          // while it closes are written by this loop, since `running` is still set.
          await this.journalFile.close();
          if (!more()) break;
        }
        if (!this.pending) {
          await this.compact();
          continue;
        }
        const batch = this.waiting;
        const changed = this.whole ? 'all' : this.dirty;
        this.waiting = [];
        this.dirty = new Set();
        this.whole = false;
        this.pending = false;
        try {
          const text = this.encodeLine(++this.generation, changed);
          // Encoded once: the write and the journal's size both take the bytes.
          const line = Buffer.from(`${this.tornTail ? '\n' : ''}${text}\n`);
          this.tornTail = true;
          await this.journalFile.append(line, !this.journalKnown);
          this.tornTail = false;
          this.journalKnown = true;
          this.journalBytes += line.length;
          this.uncompacted = true;
        } catch (error) {
          // The line may be on disk in whole, in part or not at all: a whole state is right after any.
          // It is written with the next change, not retried at once: a full disk stays full a while.
          this.whole = true;
          this.options.onWriteError(error as Error);
          for (const waiter of batch) waiter.reject(error as Error);
          continue;
        }
        for (const waiter of batch) waiter.resolve();
        if (this.journalBytes >= this.compactAt) await this.compact();
      }
    } finally {
      // In the same turn as the last check of `pending`, so a save cannot slip between the two.
      this.running = undefined;
      this.compactNow = false;
      if (this.uncompacted && !this.compactTimer) {
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

  /**
   * Folds the journal into the state file and its copy: the items as they are now, at the generation
   * of the last line. Changes not written yet are in it already, which the next line's changes then
   * repeat (a put or a removal gives the same state twice). A failure leaves the journal as it is.
   */
  private async compact(): Promise<void> {
    this.compactNow = false;
    if (!this.uncompacted) return;
    try {
      const text = `${this.encodeLine(this.generation, 'all')}\n`;
      await writeAtomically(this.file, text);
      this.uncompacted = false;
      await writeAtomically(this.backup, text).catch(() => undefined);
      // A crash before this leaves lines the state file holds already; their generations tell.
      await truncateFile(this.journal);
      this.journalBytes = 0;
      this.compactAt = this.options.compactBytes;
    } catch {
      // The journal still holds everything; try again once it has grown by as much again.
      this.compactAt = this.journalBytes + this.options.compactBytes;
    }
  }
}
