/**
 * Durable session state: one JSON file, replaced atomically (write a temporary file, fsync, rename,
 * fsync the directory) so that a crash at any moment leaves either the old or the new file, never a
 * mix. A second copy (`.bak`) is written the same way, so that a file damaged from outside (a torn
 * copy, a full disk, an editor) still leaves a good state to recover from. The copy is written beside
 * the next write of the main file rather than after it, and callers wait only for the main file, so
 * the copy adds nothing to the time a save takes; it lags the main file by at most one write.
 */
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import path from 'node:path';

/** The file's layout; `version` changes when the layout does. */
export interface StateFile<T> {
  version: 1;
  savedAt: string;
  sessions: T[];
}

/** What `load()` found. */
export interface LoadResult<T> {
  sessions: T[];
  /** Where the state came from; `none` when there was no usable file (first start, or both damaged). */
  source: 'main' | 'backup' | 'none';
  /** Reasons the main file (and the backup) could not be used, for the log. */
  problems: string[];
}

async function writeAtomically(file: string, text: string): Promise<void> {
  const temporary = `${file}.tmp-${process.pid}`;
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
  // The rename itself is durable only once the directory entry is on disk.
  const directory = await open(path.dirname(file), 'r');
  try {
    await directory.sync();
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic there.
  } finally {
    await directory.close();
  }
}

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}

function parse<T>(text: string): T[] {
  const data = JSON.parse(text) as Partial<StateFile<T>> | null;
  if (!data || data.version !== 1 || !Array.isArray(data.sessions)) {
    throw new Error('not a session state file');
  }
  return data.sessions;
}

/** The durable list of sessions in the data directory. */
export class StateStore<T> {
  readonly file: string;
  readonly backup: string;
  /** The newest snapshot asked for, taken when the next write starts. */
  private latest: (() => T[]) | undefined;
  /** Callers waiting for the next write to start and complete. */
  private waiting: Waiter[] = [];
  /** The write loop of the main file while it runs. */
  private running: Promise<void> | undefined;
  /** The newest text of the main file that the backup does not hold yet. */
  private unbacked: string | undefined;
  /** The write loop of the backup while it runs. */
  private backingUp: Promise<void> | undefined;

  constructor(dataDir: string, name = 'sessions.json') {
    this.file = path.join(dataDir, name);
    this.backup = `${this.file}.bak`;
  }

  /** Reads the state; never throws on a missing, torn or foreign file (a damaged file is set aside). */
  async load(): Promise<LoadResult<T>> {
    await mkdir(path.dirname(this.file), { recursive: true });
    const problems: string[] = [];
    for (const [source, file] of [
      ['main', this.file],
      ['backup', this.backup],
    ] as const) {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
          problems.push(`${file}: ${(error as Error).message}`);
        continue;
      }
      try {
        return { sessions: parse<T>(text), source, problems };
      } catch (error) {
        problems.push(`${file}: ${(error as Error).message}`);
        // Keep the damaged file for a person to look at, out of the way of the next save.
        await rename(file, `${file}.corrupt-${Date.now()}`).catch(() => undefined);
      }
    }
    return { sessions: [], source: 'none', problems };
  }

  /**
   * Saves a snapshot. The promise resolves once the first write that starts after this call is on
   * disk (group commit: the calls made while a write is under way share the next one, which takes the
   * newest snapshot), so a caller waits for at most two writes however long saves keep coming. It
   * rejects when that write fails.
   */
  save(snapshot: () => T[]): Promise<void> {
    this.latest = snapshot;
    const promise = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    this.running ??= this.drain();
    return promise;
  }

  /** Resolves when every save asked for so far is on disk (or has failed), and its backup too. */
  async flush(): Promise<void> {
    while (this.running || this.backingUp) await (this.running ?? this.backingUp);
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting;
        const snapshot = this.latest as () => T[];
        this.waiting = [];
        this.latest = undefined;
        try {
          const state: StateFile<T> = { version: 1, savedAt: new Date().toISOString(), sessions: snapshot() };
          const text = `${JSON.stringify(state)}\n`;
          this.backUp();
          await writeAtomically(this.file, text);
          this.unbacked = text;
        } catch (error) {
          for (const waiter of batch) waiter.reject(error as Error);
          continue;
        }
        for (const waiter of batch) waiter.resolve();
      }
    } finally {
      // In the same turn as the last check of `waiting`, so a save cannot slip between the two.
      this.running = undefined;
      this.backUp();
    }
  }

  /** Starts the backup write of the last text on disk, unless one is under way (it is taken up after). */
  private backUp(): void {
    if (this.unbacked === undefined) return;
    this.backingUp ??= (async () => {
      try {
        while (this.unbacked !== undefined) {
          const text = this.unbacked;
          this.unbacked = undefined;
          // A failed backup is not the caller's failure: the main file holds the state.
          await writeAtomically(this.backup, text).catch(() => undefined);
        }
      } finally {
        this.backingUp = undefined;
      }
    })();
  }
}
