/**
 * The files under the session state: their layout, and the two ways they are written durably (an
 * atomic replace, and an append to the journal).
 */
import { statSync } from 'node:fs';
import { open, rename, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/** The layout of the state file and of each journal line; `version` changes when the layout does. */
export interface StateFile<T> {
  version: 1;
  /** Grows by one with each write, so that the newest of the files can be told (absent: 0). */
  generation?: number;
  savedAt: string;
  sessions: T[];
}

/** Replaces `file` so that a crash at any moment leaves either the old or the new text, never a mix. */
export async function writeAtomically(file: string, text: string): Promise<void> {
  const temporary = `${file}.tmp-${process.pid}`;
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
  await syncDirectory(file);
}

/** A new or renamed entry is durable only once its directory is on disk. */
export async function syncDirectory(file: string): Promise<void> {
  const directory = await open(path.dirname(file), 'r');
  try {
    await directory.sync();
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic there.
  } finally {
    await directory.close();
  }
}

/**
 * Appends lines to the journal, each on disk (one data sync, no rename, no directory sync) before
 * `append` resolves. The file stays open between the appends of a busy spell, since opening and
 * closing it for each would double the cost of a save; `close()` ends the spell. Before each append
 * the path is checked to still name the open file, so that a journal replaced or removed from outside
 * is taken up again (and a write that cannot reach it fails) as if it were opened each time.
 */
export class JournalAppender {
  private handle: FileHandle | undefined;
  private identity = '';

  constructor(readonly file: string) {}

  /** Appends `line` and syncs it; `created` says the journal may be new, so its directory is synced too. */
  async append(line: string | Buffer, created: boolean): Promise<void> {
    let fresh = created;
    const current = identityOf(this.file);
    if (this.handle && current !== this.identity) await this.close();
    if (!this.handle) {
      // A journal that was missing is made here: its directory entry must reach the disk too.
      fresh ||= current === undefined;
      const handle = await open(this.file, 'a', 0o600);
      this.handle = handle;
      this.identity = identityOf(this.file) ?? '';
    }
    try {
      // writeFile, not write: write() may write part of the line and say so rather than throw (a file
      // size limit), and a line that is only partly on disk is not a save.
      await this.handle.writeFile(line);
      await this.handle.datasync();
    } catch (error) {
      // Opened again for the next line, which then learns afresh what state the file is in.
      await this.close();
      throw error;
    }
    if (fresh) await syncDirectory(this.file);
  }

  /** Closes the file until the next append; never throws. */
  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    this.identity = '';
    await handle?.close().catch(() => undefined);
  }
}

/** Device and inode of what `file` names now; undefined when it names nothing. */
function identityOf(file: string): string | undefined {
  const stats = statSync(file, { throwIfNoEntry: false });
  return stats ? `${stats.dev}:${stats.ino}` : undefined;
}

/** Empties the journal once the state file holds everything in it. */
export async function truncateFile(file: string): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.truncate(0);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** Reads one state; throws on anything that is not one. */
export function parseState<T>(text: string): StateFile<T> {
  const data = JSON.parse(text) as Partial<StateFile<T>> | null;
  if (!data || data.version !== 1 || !Array.isArray(data.sessions)) {
    throw new Error('not a session state file');
  }
  return data as StateFile<T>;
}

/** The newest complete state in a journal; a torn last line (a crash mid-append) is passed over. */
export function lastJournalState<T>(text: string): StateFile<T> | undefined {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (!line) continue;
    try {
      return parseState<T>(line);
    } catch {
      // Torn or damaged: an older line may still be whole.
    }
  }
  return undefined;
}
