/** What a test sees of the machine's processes (Linux /proc): those a run left behind, and whether one lives. */
import { readdirSync, readFileSync } from 'node:fs';

/** The state letter of /proc/<pid>/stat (R, S, Z, T, ...), undefined once it is gone. */
function stateOf(pid: number | string): string | undefined {
  return /\)\s+(\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
}

/** Whether a process names `marker` in its command line or its environment (where a session's id travels). */
function names(pid: string, marker: string): boolean {
  if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(marker)) return true;
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').includes(marker);
  } catch {
    // Another user's process, where the test does not run as root.
    return false;
  }
}

/**
 * Pids of every live process that names `marker` (a session id, a directory) in its command line or its
 * environment: an application is given its session's id in its environment (protocol/launch.ts), and a test
 * that looked at command lines only would find none of them and call every session clean.
 */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      // A zombie has exited; only its parent's wait is missing.
      if (stateOf(name) !== 'Z' && names(name, marker)) found.push(Number(name));
    } catch {
      // gone while we looked
    }
  }
  return found;
}

/** The session's display host: of the processes that name the session, the one that runs its entry point. */
export function displayHostOf(sessionId: string): number | undefined {
  return processesWith(sessionId).find((pid) =>
    /dist-apps\/display\.mjs|streamer\/display\/main\.ts/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8')),
  );
}

/** Whether a process is alive (and not a zombie). */
export function alive(pid: number): boolean {
  try {
    const state = stateOf(pid);
    return state !== undefined && state !== 'Z';
  } catch {
    return false;
  }
}

/** Pids of the processes named `name` (pulseaudio, parec) that run as host user `uid`. */
export function processesNamed(name: string, uid: number): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const uids = /^Uid:\s+(\d+)/m.exec(status)?.[1];
      if (/^Name:\s+(.*)$/m.exec(status)?.[1] === name && Number(uids) === uid) found.push(Number(pid));
    } catch {
      // ended between the listing and the read
    }
  }
  return found;
}

/** The children of `pid`, whichever of its threads started them. */
export function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((task) => {
    try {
      return readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
        .split(' ')
        .filter((word) => word !== '')
        .map(Number);
    } catch {
      return [];
    }
  });
}

/** Every process below `root`, its children first, then theirs. */
export function descendantsOf(root: number): number[] {
  const found: number[] = [];
  for (let next = childrenOf(root); next.length > 0; next = next.flatMap(childrenOf)) found.push(...next);
  return found;
}
