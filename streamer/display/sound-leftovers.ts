/**
 * What a display host killed outright (SIGKILL, a lost machine) leaves of its session's sound: the folder that held
 * the sound server's socket and log (sound-server.ts). The server itself died with the sandbox; the folder is swept
 * at the service's next start, once no process of its session's user runs any more.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The start of every session's sound folder name, in the system's temporary folder. */
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
