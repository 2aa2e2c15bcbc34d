/**
 * How a process running as root reaches into a folder that an untrusted program owns, without being led
 * anywhere else. Node has no `openat`, so every entry is opened through the folder's descriptor, as
 * `/proc/self/fd/<folder>/<name>`: the kernel resolves the descriptor to the folder it was opened on, whatever
 * has been renamed or swapped since, and looks up one component there. O_NOFOLLOW refuses a link in that last
 * component (a planted `x -> /etc/passwd`), O_NONBLOCK keeps a FIFO from holding the open, and the descriptor's
 * own fstat decides what it is: a regular file (or a folder, for the walk) is taken, anything else is closed
 * unread. A folder swapped for a link between a listing and an open fails the open (ELOOP), never follows it.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir, type FileHandle } from 'node:fs/promises';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

/** The path that names `name` inside the folder open on `dirFd`, resolved through the descriptor. */
export function inFolder(dirFd: number, name: string): string {
  return `/proc/self/fd/${dirFd}/${name}`;
}

/** An entry opened and checked: its descriptor and what fstat said of it. */
export interface OpenEntry {
  handle: FileHandle;
  stats: Stats;
}

/** Errors that mean "not something this may open": gone, a link, a folder where a file was, a FIFO without writer. */
const REFUSED = new Set(['ENOENT', 'ELOOP', 'ENOTDIR', 'EISDIR', 'ENXIO', 'EACCES', 'EPERM', 'ENODEV']);

/**
 * Opens `name` in the folder open on `dirFd` as `kind` (a regular file, or a folder), or null when it is
 * anything else: missing, a link, a FIFO, a device, a socket. Never follows a link, never blocks.
 */
export async function openEntry(
  dirFd: number,
  name: string,
  kind: 'file' | 'folder',
): Promise<OpenEntry | null> {
  const flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | (kind === 'folder' ? O_DIRECTORY : 0);
  let handle: FileHandle;
  try {
    handle = await open(inFolder(dirFd, name), flags);
  } catch (error) {
    if (REFUSED.has((error as NodeJS.ErrnoException).code ?? '')) return null;
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (kind === 'file' ? stats.isFile() : stats.isDirectory()) return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
  await handle.close();
  return null;
}

/** Opens the folder `dir` itself, refusing a link there too. */
export function openFolder(dir: string): Promise<FileHandle> {
  return open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
}

/** The names in the folder open on `dirFd`, read through its descriptor. */
export function namesIn(dirFd: number): Promise<string[]> {
  return readdir(`/proc/self/fd/${dirFd}`);
}

/** A folder deeper than this is left out of a walk: each level holds a descriptor open while it is read. */
export const MAX_DEPTH = 32;

/** One regular file or folder found by `walk`: its path from the root, one name a component. */
export interface WalkedEntry {
  path: string[];
  stats: Stats;
  kind: 'file' | 'folder';
}

/**
 * Every regular file and folder under the folder open on `rootFd`, folders before what they hold, each level
 * opened through its parent's descriptor (openEntry), so that nothing outside the tree is ever reached. Links,
 * FIFOs, devices and sockets are skipped; `skip` leaves out names of the root itself (uploads still being written).
 */
export async function* walk(
  rootFd: number,
  skip: (name: string) => boolean = () => false,
  prefix: string[] = [],
): AsyncGenerator<WalkedEntry> {
  for (const name of (await namesIn(rootFd)).sort()) {
    if (prefix.length === 0 && skip(name)) continue;
    const path = [...prefix, name];
    // lstat names what is there without opening it (nor following a link): a FIFO or a device is never opened.
    const found = await lstatIn(rootFd, name);
    if (found?.isFile()) {
      yield { path, stats: found, kind: 'file' };
    } else if (found?.isDirectory() && path.length <= MAX_DEPTH) {
      // Opened through its descriptor: one swapped for a link since the lstat fails here, unfollowed.
      const folder = await openEntry(rootFd, name, 'folder');
      if (!folder) continue;
      try {
        yield { path, stats: folder.stats, kind: 'folder' };
        yield* walk(folder.handle.fd, skip, path);
      } finally {
        await folder.handle.close();
      }
    }
  }
}

/** What `name` is in the folder open on `dirFd`, a link as a link; null when it is gone. */
export async function lstatIn(dirFd: number, name: string): Promise<Stats | null> {
  try {
    return await lstat(inFolder(dirFd, name));
  } catch (error) {
    if (REFUSED.has((error as NodeJS.ErrnoException).code ?? '')) return null;
    throw error;
  }
}

/**
 * Opens the regular file at `path` under the folder open on `rootFd`, through a descriptor at each level as
 * `walk` does; null when any part of it is not what it must be any more.
 */
export async function openPath(rootFd: number, path: readonly string[]): Promise<OpenEntry | null> {
  const opened: FileHandle[] = [];
  try {
    let dirFd = rootFd;
    for (const name of path.slice(0, -1)) {
      const folder = await openEntry(dirFd, name, 'folder');
      if (!folder) return null;
      opened.push(folder.handle);
      dirFd = folder.handle.fd;
    }
    return await openEntry(dirFd, path[path.length - 1] as string, 'file');
  } finally {
    await Promise.all(opened.map((handle) => handle.close()));
  }
}
