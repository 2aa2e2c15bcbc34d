/** Small statistics and process figures the benchmarks share. */
import { readFileSync } from 'node:fs';
import { childrenOf } from '../test-support/processes';

/** The middle value, or the mean of the two middle values of an even count; NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The value below which a fraction `q` of the values lie (nearest rank); NaN for none. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] ?? NaN;
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** utime + stime of a process, in seconds; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return 0;
  }
}

/** CPU seconds of process trees, split as a session's parts: its program, its X server, and the rest. */
export interface TreeCpu {
  /** The terminal (xterm) and all it runs. */
  program: number;
  /** Xvfb, which draws the program's picture. */
  xServer: number;
  /** Video encoders (ffmpeg). */
  encoder: number;
  /** Everything else: for Streamgate the service and display hosts; for VNC x11vnc and websockify. */
  streaming: number;
}

/** The fields of /proc/<pid>/stat after the name; undefined once it is gone. */
function statFields(pid: number): { comm: string; fields: string[] } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    return { comm, fields: stat.slice(stat.lastIndexOf(')') + 2).split(' ') };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of every process under `roots` (the roots included), each with what its children used and it
 * reaped (cutime, cstime: a scrolling shell's `ls` and `date` live a millisecond each), by part.
 */
export function treeCpu(roots: readonly number[]): TreeCpu {
  const total: TreeCpu = { program: 0, xServer: 0, encoder: 0, streaming: 0 };
  const queue = roots.map((pid) => ({ pid, inProgram: false }));
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const stat = statFields(next.pid);
    if (!stat) continue;
    const inProgram = next.inProgram || stat.comm === 'xterm';
    const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((i) => Number(stat.fields[i]));
    const seconds = ((utime ?? 0) + (stime ?? 0) + (cutime ?? 0) + (cstime ?? 0)) / TICKS;
    if (inProgram) total.program += seconds;
    else if (stat.comm === 'Xvfb') total.xServer += seconds;
    else if (stat.comm === 'ffmpeg') total.encoder += seconds;
    else total.streaming += seconds;
    queue.push(...childrenOf(next.pid).map((pid) => ({ pid, inProgram })));
  }
  return total;
}
