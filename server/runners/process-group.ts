/**
 * Process-group helpers for applications started detached (each is the leader of its own group).
 * Liveness reads /proc where it exists because a zombie still answers kill(pid, 0): after a crash of
 * the service, adopted applications are no longer our children, and whoever inherits them may not reap.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Fields of /proc/<pid>/stat after the command name, which may itself contain spaces and parentheses. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

function hasProc(): boolean {
  try {
    readdirSync('/proc/self');
    return true;
  } catch {
    return false;
  }
}

const procAvailable = hasProc();

/** True when the process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (!procAvailable) return true;
  const fields = statFields(pid);
  return fields !== undefined && fields[0] !== 'Z';
}

/**
 * The process's start time in clock ticks since boot, which with the pid identifies one process
 * for good: a pid reused after a reboot or a wrap-around has another start time.
 */
export function startTicks(pid: number): string | undefined {
  // Field 22 of stat is starttime; fields here start at field 3 (state).
  return statFields(pid)?.[19];
}

/**
 * Whether `pid` is the application of session `sessionId`: its command line or its environment names the
 * session (the runner puts the id in both), and, when known, its start time matches.
 * Without /proc, liveness is the best that can be said.
 */
export function isSessionProcess(pid: number, sessionId: string, expectedStartTicks?: string): boolean {
  if (!isAlive(pid)) return false;
  if (!procAvailable) return true;
  if (expectedStartTicks !== undefined && startTicks(pid) !== expectedStartTicks) return false;
  for (const file of ['cmdline', 'environ']) {
    try {
      if (readFileSync(`/proc/${pid}/${file}`, 'utf8').includes(sessionId)) return true;
    } catch {
      // Unreadable (another user's process): try the next source.
    }
  }
  return false;
}

/**
 * Leaders of process groups whose command line or environment names the session: the application of
 * a session whose pid never reached the state file (the service died between spawn and save).
 */
export function findSessionProcesses(sessionId: string): number[] {
  if (!procAvailable) return [];
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid || statFields(pid)?.[2] !== name) continue;
    if (isSessionProcess(pid, sessionId)) found.push(pid);
  }
  return found;
}

/** Sends a signal to every process of the group; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** True while any member of the group is alive (zombies do not count). */
export function isGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (!procAvailable) return true;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const fields = statFields(Number(name));
    // Field 5 of stat is the process group; fields here start at field 3.
    if (fields && fields[2] === String(pgid) && fields[0] !== 'Z') return true;
  }
  return false;
}

/** Resolves true once the group is gone, false when `timeoutMs` passes first. */
export async function waitGroupGone(pgid: number, timeoutMs: number, pollMs = 20): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!isGroupAlive(pgid)) return true;
    if (Date.now() >= deadline) return false;
    await sleep(pollMs);
  }
}

/**
 * SIGTERM to the group, SIGKILL after `graceMs` if anything is left; resolves when the group is gone
 * (or, after SIGKILL, when a further short wait passes, so that a stuck kernel state cannot hang a stop).
 */
export async function stopGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  if (await waitGroupGone(pgid, graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  await waitGroupGone(pgid, 2_000);
}
