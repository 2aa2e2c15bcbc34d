/**
 * Durable session state: one JSON file, replaced atomically (write a temporary file, fsync, rename,
 * fsync the directory) so that a crash at any moment leaves either the old or the new file, never a
 * mix. A second copy (`.bak`) is written the same way after each save, so that a file damaged from
 * outside (a torn copy, a full disk, an editor) still leaves the last good state to recover from.
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
  private writing: Promise<void> | undefined;
  private pending: (() => T[]) | undefined;

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
   * Saves a snapshot. Calls made while a write is under way coalesce into one more write of the latest
   * snapshot, taken when that write starts, so the file always ends at the newest state.
   */
  save(snapshot: () => T[]): Promise<void> {
    this.pending = snapshot;
    this.writing ??= this.drain();
    return this.writing;
  }

  /** Resolves when every save asked for so far is on disk. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing.catch(() => undefined);
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending) {
        const snapshot = this.pending;
        this.pending = undefined;
        const state: StateFile<T> = { version: 1, savedAt: new Date().toISOString(), sessions: snapshot() };
        const text = `${JSON.stringify(state, null, 2)}\n`;
        await writeAtomically(this.file, text);
        await writeAtomically(this.backup, text);
      }
    } finally {
      // In the same turn as the last check of `pending`, so a save cannot slip between the two.
      this.writing = undefined;
    }
  }
}
