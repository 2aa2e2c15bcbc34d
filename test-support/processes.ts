/** What a test sees of the machine's processes (Linux /proc): those a run left behind, and whether one lives. */
import { readdirSync, readFileSync } from 'node:fs';

/** The state letter of /proc/<pid>/stat (R, S, Z, T, ...), undefined once it is gone. */
function stateOf(pid: number | string): string | undefined {
  return /\)\s+(\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
}

/** Pids of every live process whose command line contains `marker` (a session id, a directory). */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      // A zombie has exited; only its parent's wait is missing.
      if (stateOf(name) !== 'Z' && cmdline.split('\0').join(' ').includes(marker)) found.push(Number(name));
    } catch {
      // gone while we looked
    }
  }
  return found;
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
