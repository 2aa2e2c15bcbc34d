/**
 * The files under the session state: their layout, and the two ways they are written durably (an
 * atomic replace, and an append to the journal).
 */
import { open, rename } from 'node:fs/promises';
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
 * Appends one line to the journal and waits until it is on disk: one data sync, no rename, no
 * directory sync (about a tenth of the cost of an atomic replace). Opened for each write, so that a
 * journal replaced or removed from outside is taken up again.
 */
export async function appendLine(file: string, line: string, created: boolean): Promise<void> {
  const handle = await open(file, 'a', 0o600);
  try {
    // writeFile, not write: write() may write part of the line and say so rather than throw (a file
    // size limit), and a line that is only partly on disk is not a save.
    await handle.writeFile(line);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  if (created) await syncDirectory(file);
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
