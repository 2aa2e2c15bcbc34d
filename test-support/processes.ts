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
