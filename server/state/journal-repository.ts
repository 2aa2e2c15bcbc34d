/**
 * `SessionRepository` over one state file in the data directory, `sessions.json`, that each write replaces
 * whole: every record is written to a temporary file and synced, the file renamed over the state file and then
 * the same over its copy (`.bak`), and the directory synced. A crash leaves the old file or the new one, never a
 * part of one; the copy is there for a state file damaged from outside. Writes run one at a time, and the
 * changes noted while one runs share the next. Each write has a generation, one more than the last, so that
 * `load()` takes the copy only where it is newer than the state file.
 *
 * Before issue 36 a write appended the changes to a journal (`sessions.json.journal`) that was folded into the
 * state file from time to time. A journal left by that version is still read, its lines applied in order where
 * newer than the state file, and removed by the first write, which holds everything it held.
 */
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../private-files.ts';
import type { Changed, LoadResult, SessionRepository } from './session-repository.ts';

/** The state file's content; a journal line of the earlier layout holds either `sessions` or `put` and `del`. */
type State<T> = { version: 1; generation?: number; sessions?: T[]; put?: T[]; del?: string[] };

/**
 * Saves items of type S, loads items of type T. `items`: the records by id when a write starts, all of which
 * it writes; `key`: a loaded record's id; `encode`: a record as JSON (the caller may keep the text of unchanged
 * ones); `onWriteError`: told of each failed write once.
 */
export interface JournalOptions<T, S> {
  items: () => ReadonlyMap<string, S>;
  key: (item: T) => string;
  encode: (item: S) => string;
  onWriteError: (error: Error) => void;
}
type Given<T, S> = Pick<JournalOptions<T, S>, 'items' | 'key'> & Partial<JournalOptions<T, S>>;

/** Written whole (short writes are retried, so a full disk throws) and synced before the promise resolves. */
const SYNCED = { mode: PRIVATE_FILE_MODE, flush: true };

export class JournalRepository<T, S = T> implements SessionRepository<T> {
  readonly files: Readonly<Record<'main' | 'backup' | 'journal', string>>;
  private readonly options: JournalOptions<T, S>;
  private generation = 0;
  /** The saves that the next write settles. */
  private waiting: { resolve(): void; reject(error: Error): void }[] = [];
  /** The write under way and the one queued behind it; never rejects. */
  private writes = Promise.resolve();
  /** Whether a write is queued and not yet started: a change noted now is in it. */
  private queued = false;
  /** Whether a journal of the earlier layout is still on disk, to remove once a write holds what it held. */
  private journalLeft = false;

  constructor(dataDir: string, options: Given<T, S>) {
    const main = path.join(dataDir, 'sessions.json');
    this.files = { main, backup: `${main}.bak`, journal: `${main}.journal` };
    this.options = { encode: JSON.stringify, onWriteError: () => {}, ...options };
  }

  async load(): Promise<LoadResult<T>> {
    await mkdir(path.dirname(this.files.main), { recursive: true, mode: PRIVATE_DIR_MODE });
    const problems: string[] = [];
    const items = new Map<string, T>();
    let source: LoadResult<T>['source'] = 'none';
    let at = -1; // the generation of what `items` holds
    const applyIfNewer = (from: keyof typeof this.files, state: State<T>) => {
      const generation = state.generation ?? 0;
      this.generation = Math.max(this.generation, generation);
      if (generation <= at) return;
      if (state.sessions) items.clear();
      for (const item of state.sessions ?? state.put ?? []) {
        try {
          items.set(this.options.key(item), item);
        } catch {
          problems.push(`${this.files[from]}: a record without an id is passed over`); // edited by hand
        }
      }
      for (const id of state.del ?? []) items.delete(id);
      [source, at] = [from, generation];
    };

    for (const from of ['main', 'backup'] as const) {
      const file = this.files[from];
      const text = await readIfThere(file, problems);
      if (text === undefined) continue;
      const state = parse<T>(text);
      if (state?.sessions) {
        applyIfNewer(from, state);
        continue;
      }
      problems.push(`${file}: not a session state file; set aside`);
      await rename(file, `${file}.corrupt-${Date.now()}`).catch(() => undefined);
    }

    const journal = await readIfThere(this.files.journal, problems);
    this.journalLeft = journal !== undefined;
    const lines = journal?.split('\n') ?? [];
    for (const [i, text] of lines.entries()) {
      const line = parse<T>(text);
      if (line) applyIfNewer('journal', line);
      // The last line may be torn by a crash in the middle of its write; one before it was damaged later.
      else if (text && i < lines.length - 1) problems.push(`${this.files.journal}: line ${i + 1} is damaged`);
    }
    return { sessions: [...items.values()], source, problems };
  }

  /** Queues a write of every record, unless one is queued already; `_changed` is what the caller knows changed. */
  note(_changed: Changed): void {
    if (this.queued) return;
    this.queued = true;
    // A throwing onWriteError must not stop the writes after it.
    this.writes = this.writes.then(() => this.write()).catch(() => undefined);
  }

  save(changed: Changed): Promise<void> {
    const written = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    this.note(changed);
    return written;
  }

  flush(): Promise<void> {
    return this.writes;
  }

  private async write(): Promise<void> {
    this.queued = false;
    const waiting = this.waiting;
    this.waiting = [];
    try {
      await this.replaceFiles(this.stateText(++this.generation));
    } catch (error) {
      waiting.forEach((save) => save.reject(error as Error));
      this.options.onWriteError(error as Error);
      return;
    }
    waiting.forEach((save) => save.resolve());
  }

  private stateText(generation: number): string {
    const sessions = Array.from(this.options.items().values(), this.options.encode).join(',');
    const savedAt = new Date().toISOString();
    return `{"version":1,"generation":${generation},"savedAt":"${savedAt}","sessions":[${sessions}]}\n`;
  }

  private async replaceFiles(text: string): Promise<void> {
    for (const file of [this.files.main, this.files.backup]) {
      const temporary = `${file}.tmp-${process.pid}`;
      await writeFile(temporary, text, SYNCED);
      await rename(temporary, file);
    }
    // A renamed entry is durable once its directory is.
    await syncDirectory(this.files.main);
    if (this.journalLeft) {
      await rm(this.files.journal, { force: true });
      this.journalLeft = false;
    }
  }
}

/** A file's text, or undefined where there is none; a file that cannot be read is a problem, in words. */
async function readIfThere(file: string, problems: string[]): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      problems.push(`${file}: ${(error as Error).message}`);
    return undefined;
  }
}

function parse<T>(text: string): State<T> | undefined {
  try {
    const state = JSON.parse(text) as State<T> | null;
    const delta =
      Array.isArray(state?.put) && Array.isArray(state.del) && typeof state.generation === 'number';
    return state?.version === 1 && (Array.isArray(state.sessions) || delta) ? state : undefined;
  } catch {
    return undefined; // not JSON, which a torn line never is
  }
}

/** Syncs the directory of `file`, which some filesystems refuse to do. */
async function syncDirectory(file: string): Promise<void> {
  const directory = await open(path.dirname(file), 'r');
  await directory.sync().catch(() => undefined);
  await directory.close();
}
