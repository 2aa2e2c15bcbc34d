/**
 * The files under the session state: their layout, and the two ways they are written durably (an
 * atomic replace, and an append to the journal).
 */
import { statSync, writeSync } from 'node:fs';
import { open, readFile, rename, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_FILE_MODE } from './private-files.ts';

/**
 * The layout of the state file, and of a journal line that holds a whole state; `version` changes when
 * the layout does.
 */
export interface StateFile<T> {
  version: 1;
  /** Grows by one with each write, so that the newest of the files can be told (absent: 0). */
  generation?: number;
  savedAt: string;
  sessions: T[];
}

/**
 * A journal line that holds what changed since the line before it, whose generation is one less:
 * the items that changed or came (`put`, whole) and the ids of those that are gone (`del`).
 */
export interface StateDelta<T> {
  version: 1;
  generation: number;
  savedAt: string;
  put: T[];
  del: string[];
}

/** One line of the journal. */
export type JournalLine<T> = StateFile<T> | StateDelta<T>;

/** The text of `file`, or undefined when it is missing or unreadable (the latter said in `problems`). */
export async function readIfThere(file: string, problems: string[]): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      problems.push(`${file}: ${(error as Error).message}`);
    return undefined;
  }
}

/** Replaces `file` so that a crash at any moment leaves either the old or the new text, never a mix. */
export async function writeAtomically(file: string, text: string): Promise<void> {
  const temporary = `${file}.tmp-${process.pid}`;
  const handle = await open(temporary, 'w', PRIVATE_FILE_MODE);
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
      const handle = await open(this.file, 'a', PRIVATE_FILE_MODE);
      this.handle = handle;
      this.identity = identityOf(this.file) ?? '';
    }
    try {
      writeWhole(this.handle.fd, typeof line === 'string' ? Buffer.from(line) : line);
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

/**
 * Writes all of `bytes` at the end of the file, on the calling thread: an append to the page cache
 * takes microseconds, less than handing it to the thread pool and back, and only the data sync that
 * follows waits on the disk. A write may take part of the bytes and say so rather than throw (a file
 * size limit); the rest is written again, so that the error, if any, is thrown.
 */
function writeWhole(fd: number, bytes: Buffer): void {
  for (let done = 0; done < bytes.length;) {
    const written = writeSync(fd, bytes, done);
    if (written === 0) throw new Error('The journal took no more bytes.');
    done += written;
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
  const line = parseJournalLine<T>(text);
  if (!isWhole(line)) throw new Error('not a session state file');
  return line;
}

function isWhole<T>(line: JournalLine<T>): line is StateFile<T> {
  return Array.isArray((line as Partial<StateFile<T>>).sessions);
}

/** Reads one journal line, a whole state or a delta; throws on anything that is neither. */
export function parseJournalLine<T>(text: string): JournalLine<T> {
  const data = JSON.parse(text) as Partial<StateFile<T> & StateDelta<T>> | null;
  if (data?.version === 1) {
    if (Array.isArray(data.sessions)) return data as StateFile<T>;
    if (Array.isArray(data.put) && Array.isArray(data.del) && typeof data.generation === 'number')
      return data as StateDelta<T>;
  }
  throw new Error('not a session state file');
}

/** A state as `replayJournal` rebuilds it: its items by id, and the generation it stands at. */
export interface ReplayedState<T> {
  /** Keyed by `key(item)`; an item whose id cannot be read is kept under itself, where no change finds it. */
  items: Map<unknown, T>;
  generation: number;
}

/** What `replayJournal` did. */
export interface Replay {
  /** Lines that changed the state. */
  applied: number;
  /** The highest generation in a readable line, applied or not: the next write must pass it. */
  newest: number;
  /** Damaged lines and gaps, for the log. */
  problems: string[];
}

/** A state's items by id (see `ReplayedState`). */
export function itemsById<T>(items: readonly T[], key: (item: T) => string): Map<unknown, T> {
  const byId = new Map<unknown, T>();
  for (const item of items) byId.set(idOf(item, key), item);
  return byId;
}

function idOf<T>(item: T, key: (item: T) => string): unknown {
  try {
    return key(item);
  } catch {
    // A malformed item (a file edited by hand) is passed on for the caller's own checks to drop.
    return item;
  }
}

/**
 * Brings `state` (changed in place) up to date with a journal's lines, in order. Lines not newer than
 * the state are passed over: the state file already holds them (a crash between its write and the
 * journal's truncation leaves them). A whole state replaces; a delta applies only to the generation
 * just before its own. After a gap or a damaged line, deltas have no state to apply to, so they wait
 * for the next whole line. A torn last line, which a crash mid-append leaves, held no save that was
 * answered and is passed over silently.
 */
export function replayJournal<T>(state: ReplayedState<T>, text: string, key: (item: T) => string): Replay {
  const replay: Replay = { applied: 0, newest: 0, problems: [] };
  const lines = text.split('\n');
  let broken = false;
  for (const [i, raw] of lines.entries()) {
    if (!raw) continue;
    let line: JournalLine<T>;
    try {
      line = parseJournalLine<T>(raw);
    } catch {
      if (i < lines.length - 1) {
        replay.problems.push(`line ${i + 1} is damaged; the changes after it wait for a whole state`);
        broken = true;
      }
      continue;
    }
    const generation = line.generation ?? 0;
    replay.newest = Math.max(replay.newest, generation);
    if (generation <= state.generation) continue;
    if (isWhole(line)) {
      state.items = itemsById(line.sessions, key);
      broken = false;
    } else if (broken) {
      continue;
    } else if (generation !== state.generation + 1) {
      replay.problems.push(
        `line ${i + 1} (generation ${generation}) does not follow generation ${state.generation}; ` +
          'the changes from it on wait for a whole state',
      );
      broken = true;
      continue;
    } else {
      for (const item of line.put) state.items.set(idOf(item, key), item);
      for (const id of line.del) state.items.delete(id);
    }
    state.generation = generation;
    replay.applied++;
  }
  return replay;
}
