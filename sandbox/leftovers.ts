/**
 * What a session's host (the display host, the sample application) killed outright (SIGKILL, a lost machine)
 * leaves on its machine, and the sweep that removes it at the service's next start. The hosts make these folders
 * (their X server's, its framebuffer's, their sound server's, their session's files) and the service sweeps them:
 * both import the names from here, so the service needs nothing of the streamers to clean up after them.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The start of a display host's X folder name (its cookie), followed by its pid, in the temporary folder. */
export const X_DIR_PREFIX = 'streamgate-x-';
/** The start of an X server's framebuffer folder name, followed by its host's pid, in /dev/shm. */
export const FRAMEBUFFER_DIR_PREFIX = 'streamgate-fb-';
/** The start of every session folder's name (streamer/files/place.ts), followed by its host's pid. */
export const FILES_DIR_PREFIX = 'streamgate-files-';

/**
 * At the service's start: what X servers of display hosts killed outright left behind (their lock files and
 * sockets, cookie folders and framebuffer folders), wherever no live process still uses it, and their sessions'
 * sound folders and files folders. Returns what it removed.
 */
export function sweepStaleDisplays(): string[] {
  const removed: string[] = [];
  const inUse = commandLines();
  const sweep = (dir: string, prefix: string) => {
    for (const name of readdirSafe(dir).filter((each) => each.startsWith(prefix))) {
      const full = path.join(dir, name);
      // A folder is its display host's while that host lives (it names it by its pid: its X server may not have
      // started yet), or while a process names it.
      const owner = Number(new RegExp(`^${prefix}(\\d+)-`).exec(name)?.[1]);
      if ((owner > 0 && processExists(owner)) || inUse.some((line) => line.includes(full))) continue;
      rmSync(full, { recursive: true, force: true });
      removed.push(full);
    }
  };
  sweep(tmpdir(), X_DIR_PREFIX);
  sweep('/dev/shm', FRAMEBUFFER_DIR_PREFIX);
  for (const name of readdirSafe('/tmp')) {
    const lock = /^\.X(\d+)-lock$/.exec(name);
    if (!lock) continue;
    // A lock whose server is gone is stale, whoever made it; a live server's is left alone.
    if (removeLeftovers(Number(lock[1]), NaN)) removed.push(`/tmp/${name}`);
  }
  removed.push(...sweepStaleSoundDirs());
  removed.push(...sweepStaleFilesFolders(processExists));
  return removed;
}

/** The files an X server of display `n` leaves in /tmp when it is killed outright. */
function xLeftovers(n: number): [lock: string, socket: string] {
  return [`/tmp/.X${n}-lock`, `/tmp/.X11-unix/X${n}`];
}

/** Removes display `n`'s lock and socket if the lock names `pid` (it was ours), or no live process; true when it did. */
export function removeLeftovers(n: number, pid: number): boolean {
  const [lock, socket] = xLeftovers(n);
  const holder = Number(readFileSafe(lock).trim());
  // Another live server holds this display now (EPERM: alive, but another user's).
  if (holder > 0 && holder !== pid && processExists(holder)) return false;
  rmSync(lock, { force: true });
  rmSync(socket, { force: true });
  return true;
}

/**
 * The session folders of hosts that are gone (killed outright), unmounted and removed; a folder whose host still
 * runs is left alone. Returns what it removed.
 */
export function sweepStaleFilesFolders(alive: (pid: number) => boolean, root = tmpdir()): string[] {
  const removed: string[] = [];
  for (const name of readdirSafe(root).filter((each) => each.startsWith(FILES_DIR_PREFIX))) {
    const owner = Number(new RegExp(`^${FILES_DIR_PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (owner > 0 && alive(owner)) continue;
    const full = path.join(root, name);
    try {
      // A mount point lies on another device than the folder it is in.
      if (statSync(full).dev !== statSync(root).dev) {
        try {
          execFileSync('umount', [full], { stdio: 'ignore' });
        } catch {
          execFileSync('umount', ['--lazy', full], { stdio: 'ignore' });
        }
      }
      rmSync(full, { recursive: true, force: true });
      removed.push(full);
    } catch {
      // Still held, or not ours to remove: the next sweep tries again.
    }
  }
  return removed;
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** A file's text, or nothing where it cannot be read (a process that ended meanwhile). */
export function readFileSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The command lines of every process, where /proc tells. */
function commandLines(): string[] {
  return readdirSafe('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readFileSafe(`/proc/${name}/cmdline`).split('\0').join(' '));
}

/** The start of every session's sound folder name (streamer/display/sound-server.ts), in the temporary folder. */
export const SOUND_DIR_PREFIX = 'streamgate-sound-';

/** The real user ids of the processes running now (from /proc; empty where there is none). */
function runningUids(proc = '/proc'): Set<number> {
  const uids = new Set<number>();
  let names: string[] = [];
  try {
    names = readdirSync(proc).filter((name) => /^\d+$/.test(name));
  } catch {
    return uids;
  }
  for (const name of names) {
    try {
      const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(path.join(proc, name, 'status'), 'utf8'))?.[1];
      if (uid !== undefined) uids.add(Number(uid));
    } catch {
      // ended meanwhile
    }
  }
  return uids;
}

/**
 * A folder younger than this is never swept: a display host makes it a moment before its session's user has a
 * process (the sandbox starts after), and a sweep run then (another session ending) must not take it away.
 */
export const SOUND_DIR_GRACE_MS = 60_000;

/**
 * Removes the sound folders whose owner (the session's user) runs no process: their session is over. Returns what
 * it removed. A folder whose owner cannot be read, or younger than SOUND_DIR_GRACE_MS, is left alone.
 */
export function sweepStaleSoundDirs(root = tmpdir(), proc = '/proc', now = Date.now()): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(root).filter((name) => name.startsWith(SOUND_DIR_PREFIX));
  } catch {
    return [];
  }
  if (names.length === 0) return [];
  const running = runningUids(proc);
  const removed: string[] = [];
  for (const name of names) {
    const full = path.join(root, name);
    try {
      const info = statSync(full);
      if (running.has(info.uid) || now - info.mtimeMs < SOUND_DIR_GRACE_MS) continue;
    } catch {
      continue;
    }
    rmSync(full, { recursive: true, force: true });
    removed.push(full);
  }
  return removed;
}
