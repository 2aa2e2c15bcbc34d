/**
 * `SessionRepository` over files in the data directory. A write appends one line to the journal
 * (`sessions.json.journal`) and syncs it: the records changed since the line before, whole, and the ids of
 * those gone (`put`, `del`), or after a load or a failed write every record (`sessions`). Once writes pause,
 * or the journal passes `compactBytes`, the state file (`sessions.json`) and its copy (`.bak`) are replaced
 * atomically with every record and the journal emptied. Each line and file has a generation, one more per
 * line; `load()` applies each newer than what it has, so lines a crash left after a compaction are passed
 * over. A line starts with a newline: one torn by a failed write stands alone, never valid JSON, and is
 * reported unless last (as a crash mid-write leaves it).
 */
import { mkdir, open, readFile, rename, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../private-files.ts';
import type { Changed, LoadResult, SessionRepository } from './session-repository.ts';

type Line<T> = { version: 1; generation?: number; sessions?: T[]; put?: T[]; del?: string[] };

/**
 * Saves items of type S, loads items of type T. `items`: the records by id when a write starts (a changed
 * id missing there is removed); `key`: a loaded record's id; `encode`: a record as JSON (the caller may
 * keep the text of unchanged ones); `onWriteError`: told of each failed write once; `compactBytes` (4 MiB)
 * and `idleMs` (200 ms): the journal size, and the quiet time after a write, that compact it.
 */
export interface JournalOptions<T, S> {
  items: () => ReadonlyMap<string, S>;
  key: (item: T) => string;
  encode: (item: S) => string;
  onWriteError: (error: Error) => void;
  compactBytes: number;
  idleMs: number;
}
type Given<T, S> = Pick<JournalOptions<T, S>, 'items' | 'key'> & Partial<JournalOptions<T, S>>;
/** Written whole (short writes are retried, so a full disk throws) and synced before the promise resolves. */
const SYNCED = { mode: PRIVATE_FILE_MODE, flush: true };
const DEFAULTS = { compactBytes: 4 << 20, idleMs: 200, encode: JSON.stringify, onWriteError: () => {} };

export class JournalRepository<T, S = T> implements SessionRepository<T> {
  readonly files: Readonly<Record<'main' | 'backup' | 'journal', string>>;
  private readonly options: JournalOptions<T, S>;
  private changed = new Map<string, boolean>(); // since the last line: id, and whether removed outright
  private whole = true; // whether the next line holds every record: the disk may hold anything
  private waiting: { resolve(): void; reject(error: Error): void }[] = [];
  private queue = Promise.resolve(); // writes and compactions, one at a time, never rejected
  private queued = false; // whether a write waits in the queue, which changes noted now join
  private generation = 0;
  private journalBytes = 0; // of lines that the state file does not hold
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(dataDir: string, options: Given<T, S>) {
    const main = path.join(dataDir, 'sessions.json');
    this.files = { main, backup: `${main}.bak`, journal: `${main}.journal` };
    this.options = { ...DEFAULTS, ...options };
  }

  async load(): Promise<LoadResult<T>> {
    await mkdir(path.dirname(this.files.main), { recursive: true, mode: PRIVATE_DIR_MODE });
    const [problems, items] = [[] as string[], new Map<string, T>()];
    let [source, at]: [LoadResult<T>['source'], number] = ['none', -1];
    // The state file, then its copy (taken only if newer), then the journal's lines.
    for (const [from, file] of Object.entries(this.files) as [LoadResult<T>['source'], string][]) {
      const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') problems.push(`${file}: ${error.message}`);
      });
      if (from === 'journal') this.journalBytes = Buffer.byteLength(text ?? '');
      const lines = text === undefined ? [] : from === 'journal' ? text.split('\n') : [text];
      for (const [i, raw] of lines.entries()) {
        const line = parse<T>(raw);
        this.generation = Math.max(this.generation, line?.generation ?? 0);
        if (from !== 'journal' && !line?.sessions) {
          problems.push(`${file}: not a session state file; set aside`);
          await rename(file, `${file}.corrupt-${Date.now()}`).catch(() => undefined);
          continue;
        }
        if (!line && raw && i < lines.length - 1) problems.push(`${file}: line ${i + 1} is damaged`);
        if (!line || (line.generation ?? 0) <= at) continue; // damaged, or held already
        if (line.sessions) items.clear();
        for (const item of line.sessions ?? line.put ?? []) {
          try {
            items.set(this.options.key(item), item);
          } catch {
            problems.push(`${file}: a record without an id is passed over`); // edited by hand
          }
        }
        for (const id of line.del ?? []) items.delete(id);
        [source, at] = [from, line.generation ?? 0];
      }
    }
    this.whole = true;
    return { sessions: [...items.values()], source, problems };
  }

  note(ids: Changed, removed = false): void {
    if (ids === 'all') this.whole = true;
    else for (const id of typeof ids === 'string' ? [ids] : ids) this.changed.set(id, removed);
    if (!this.queued) this.queue = this.queue.then(() => this.write()).catch(() => undefined);
    this.queued = true;
  }

  save(ids: Changed, removed = false): Promise<void> {
    const written = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    this.note(ids, removed);
    return written;
  }

  remove(id: string): Promise<void> {
    return this.save(id, true);
  }

  async flush(): Promise<void> {
    await (this.queue = this.queue.then(() => this.compact()));
  }

  private encodeLine(generation: number, changed: ReadonlyMap<string, boolean> | 'all'): string {
    const [items, encode] = [this.options.items(), this.options.encode];
    const head = `{"version":1,"generation":${generation},"savedAt":"${new Date().toISOString()}"`;
    if (changed === 'all') return `${head},"sessions":[${Array.from(items.values(), encode).join(',')}]}`;
    const now = Array.from(changed, ([id, removed]) => [id, removed ? undefined : items.get(id)] as const);
    const put = now.flatMap(([, item]) => (item === undefined ? [] : [encode(item)]));
    const del = now.flatMap(([id, item]) => (item === undefined ? [id] : []));
    return `${head},"put":[${put.join(',')}],"del":${JSON.stringify(del)}}`;
  }

  private async write(): Promise<void> {
    const [batch, changed, whole] = [this.waiting, this.changed, this.whole];
    [this.waiting, this.changed, this.whole, this.queued] = [[], new Map(), false, false];
    try {
      const line = Buffer.from(`\n${this.encodeLine(++this.generation, whole ? 'all' : changed)}`);
      await writeFile(this.files.journal, line, { flag: 'a', ...SYNCED });
      if (whole) await syncDirectory(this.files.journal); // after a load or a failure it may be new
      this.journalBytes += line.length;
    } catch (error) {
      this.whole = true; // the line may be on disk in whole, in part or not at all
      batch.forEach((waiter) => waiter.reject(error as Error));
      return this.options.onWriteError(error as Error);
    }
    batch.forEach((waiter) => waiter.resolve());
    if (this.journalBytes >= this.options.compactBytes) return this.compact();
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.flush(), this.options.idleMs).unref();
  }

  private async compact(): Promise<void> {
    if (this.journalBytes === 0) return;
    try {
      const text = `${this.encodeLine(this.generation, 'all')}\n`;
      for (const file of [this.files.main, this.files.backup]) {
        await writeFile(`${file}.tmp-${process.pid}`, text, SYNCED);
        await rename(`${file}.tmp-${process.pid}`, file);
        await syncDirectory(file);
      }
      await truncate(this.files.journal);
      this.journalBytes = 0;
    } catch {
      // The journal still holds everything: tried again at the next flush, pause or write past the limit.
    }
  }
}

function parse<T>(text: string): Line<T> | undefined {
  try {
    const line = JSON.parse(text) as Line<T> | null;
    const delta = Array.isArray(line?.put) && Array.isArray(line.del) && typeof line.generation === 'number';
    return line?.version === 1 && (Array.isArray(line.sessions) || delta) ? line : undefined;
  } catch {
    return undefined; // not JSON, which a torn line never is
  }
}

/** A new or renamed entry is durable once its directory is (which some filesystems refuse to sync). */
async function syncDirectory(file: string): Promise<void> {
  const directory = await open(path.dirname(file), 'r');
  await directory.sync().catch(() => undefined);
  await directory.close();
}
