/**
 * A session's control groups (CONTRACT section 17): every process of a session lives in one group, so that its
 * end kills them all (a `setsid` or double fork included), and its program lives in a subgroup whose memory,
 * CPU and process count are limited, so that past a limit the program is slowed or stopped, never the host.
 *
 *   <base>/streamgate/<session id>/app       the application (display host, Xvfb, encoder): no limits
 *   <base>/streamgate/<session id>/program   the sandboxed program: settings.limits
 *
 * Both hierarchies are handled: cgroup v2 (one tree, `memory.max`, `cpu.max`, `pids.max`, `cgroup.kill`) and
 * v1 (one tree per controller: memory, cpu, pids, each with its own files). `<base>` is the service's own
 * group, so that sessions count against whatever limits the service was given.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A profile's `settings.limits`. */
export interface CgroupLimits {
  /** Cores the program may use (1.5 = one and a half). */
  cpus: number;
  memoryMb: number;
  pids: number;
}

export const DEFAULT_LIMITS: CgroupLimits = { cpus: 1, memoryMb: 4096, pids: 512 };

/** The v1 controllers a session uses, each mounted at `<root>/<name>`. */
const V1_CONTROLLERS = ['memory', 'cpu', 'pids'] as const;
const CPU_PERIOD_US = 100_000;

/** The part of a session: its application, or its sandboxed program. */
export type Part = 'app' | 'program';

/** Where this machine keeps control groups and which version they are. */
export interface Hierarchy {
  version: 1 | 2;
  /**
   * The folder under which sessions' groups are made: one for v2, one per controller for v1. Each is the
   * service's own group with `streamgate` appended.
   */
  bases: string[];
}

/**
 * This machine's hierarchy as seen by this process, or a sentence saying why none can be used. `root` is
 * where cgroup file systems are mounted; `self` is the text of /proc/self/cgroup.
 */
export function findHierarchy(
  root = '/sys/fs/cgroup',
  self = readText('/proc/self/cgroup') ?? '',
): Hierarchy | string {
  const own = (controller: string): string => {
    for (const line of self.split('\n')) {
      const [, controllers, where] = line.split(':');
      if (where !== undefined && controllers?.split(',').includes(controller)) return where;
    }
    return '/';
  };
  // Inside a cgroup namespace (a container) the path may name a group above the mount: use the mount then.
  const under = (mount: string, where: string) => {
    const full = path.join(mount, where);
    return existsSync(full) ? full : mount;
  };
  if (existsSync(path.join(root, 'cgroup.controllers'))) {
    const available = readText(path.join(root, 'cgroup.controllers')) ?? '';
    const missing = ['memory', 'cpu', 'pids'].filter((c) => !available.split(/\s+/).includes(c));
    if (missing.length > 0)
      return `the machine's control groups lack the ${missing.join(' and ')} controller`;
    return { version: 2, bases: [path.join(under(root, own('')), 'streamgate')] };
  }
  const bases: string[] = [];
  for (const controller of V1_CONTROLLERS) {
    const mount = path.join(root, controller);
    if (!existsSync(path.join(mount, 'cgroup.procs')))
      return `the machine's control groups lack the ${controller} controller`;
    bases.push(path.join(under(mount, own(controller)), 'streamgate'));
  }
  return { version: 1, bases };
}

/** One session's groups. Nothing is made until `create()`. */
export class SessionCgroup {
  constructor(
    private readonly hierarchy: Hierarchy,
    readonly sessionId: string,
  ) {}

  /** The session's folder in each tree. */
  get roots(): string[] {
    return this.hierarchy.bases.map((base) => path.join(base, this.sessionId));
  }

  /** The folders a process joins to be in `part` (one per tree). */
  dirs(part: Part): string[] {
    return this.roots.map((dir) => path.join(dir, part));
  }

  /** Makes both parts and sets the program's limits; throws a sentence-like error when it cannot. */
  create(limits: CgroupLimits): void {
    for (const base of this.hierarchy.bases) ensureGroup(base, this.hierarchy.version);
    for (const dir of this.roots) ensureGroup(dir, this.hierarchy.version);
    for (const part of ['app', 'program'] as const)
      for (const dir of this.dirs(part)) mkdirSync(dir, { recursive: true });
    this.limit(limits);
  }

  private limit({ cpus, memoryMb, pids }: CgroupLimits): void {
    const memory = String(Math.round(memoryMb * 1024 * 1024));
    const quota = String(Math.max(1_000, Math.round(cpus * CPU_PERIOD_US)));
    const files: Record<string, string> =
      this.hierarchy.version === 2
        ? {
            'memory.max': memory,
            'memory.swap.max': '0',
            'cpu.max': `${quota} ${CPU_PERIOD_US}`,
            'pids.max': String(pids),
          }
        : {
            'memory.limit_in_bytes': memory,
            'cpu.cfs_period_us': String(CPU_PERIOD_US),
            'cpu.cfs_quota_us': quota,
            'pids.max': String(pids),
          };
    for (const dir of this.dirs('program')) {
      for (const [name, value] of Object.entries(files)) {
        const file = path.join(dir, name);
        // v1: each tree has its own controller's files; v2: swap accounting may be off (no memory.swap.max).
        if (existsSync(file)) writeFileSync(file, value);
      }
    }
  }

  /** Every process of the session (both parts), read from the first tree. */
  pids(part?: Part): number[] {
    const first = this.roots[0];
    if (!first) return [];
    const dirs = part ? [path.join(first, part)] : [path.join(first, 'app'), path.join(first, 'program')];
    return dirs.flatMap((dir) => procsUnder(dir));
  }

  /** How many times the kernel killed a process of the program for going over its memory limit. */
  oomKills(): number {
    return oomKillsIn(this.dirs('program'));
  }

  /**
   * Kills every process of the session and removes its groups. A fork bomb refills a group while it is
   * being killed, so the kill repeats until the groups are empty (the pids limit bounds each round).
   */
  async destroy(): Promise<void> {
    const kill = this.roots.map((dir) => path.join(dir, 'cgroup.kill')).find((file) => existsSync(file));
    for (let round = 0; round < 200; round++) {
      if (kill) {
        try {
          writeFileSync(kill, '1');
        } catch {
          // gone already
        }
      }
      const left = this.pids();
      for (const pid of left) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // exited meanwhile
        }
      }
      if (left.length === 0 && this.remove()) return;
      await sleep(round < 20 ? 5 : 25);
    }
  }

  /** Removes the session's folders, leaves first; false while a process is still in one. */
  private remove(): boolean {
    let removed = true;
    for (const dir of this.roots) {
      for (const part of ['app', 'program']) removed = removeDir(path.join(dir, part)) && removed;
      removed = removeDir(dir) && removed;
    }
    return removed;
  }
}

/** A session's CPU weight when it weighs as one ordinary process: v1's `cpu.shares` default, v2's `cpu.weight`. */
const BASE_WEIGHT = { 'cpu.shares': 1024, 'cpu.weight': 100 } as const;

/**
 * Makes session groups weigh `factor` times the base weight against the other sessions (1: equal to them, the
 * kernel's default); `programDirs` are the session's `program` folders, one per tree, as `dirs('program')` gives
 * them (a display host knows its session's groups by those). Only the trees with a CPU weight are written. A
 * write that fails (a group removed at the session's end) leaves the weight as it was: it changes how soon the
 * session's processes run, never whether they do.
 */
export function weighSession(programDirs: readonly string[], factor: number): void {
  for (const dir of programDirs) {
    const session = path.dirname(dir);
    for (const [name, base] of Object.entries(BASE_WEIGHT)) {
      const file = path.join(session, name);
      if (!existsSync(file)) continue;
      try {
        writeFileSync(file, String(Math.round(base * factor)));
      } catch {
        // gone with its session
      }
    }
  }
}

/** `oom_kill` of a memory group (v1 `memory.oom_control`, v2 `memory.events`); 0 where there is none. */
export function oomKillsIn(dirs: readonly string[]): number {
  for (const dir of dirs) {
    for (const file of ['memory.events', 'memory.oom_control']) {
      const match = /^oom_kill (\d+)$/m.exec(readText(path.join(dir, file)) ?? '');
      if (match) return Number(match[1]);
    }
  }
  return 0;
}

/** Session ids that have groups under the hierarchy (for the sweep at start). */
export function sessionGroups(hierarchy: Hierarchy): string[] {
  const base = hierarchy.bases[0];
  if (!base) return [];
  try {
    return readdirSync(base, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/**
 * Makes `dir` a group under which limited groups can be made. In v2 a group's controllers must be enabled in
 * its parent's `cgroup.subtree_control`, and a group that holds processes cannot enable them for its children
 * ("no internal processes"): the service's own group is then split, the service moving to a leaf of its own.
 */
function ensureGroup(dir: string, version: 1 | 2): void {
  mkdirSync(dir, { recursive: true });
  if (version === 1) return;
  const parent = path.dirname(dir);
  enableControllers(parent);
  enableControllers(dir);
}

function enableControllers(dir: string): void {
  const control = path.join(dir, 'cgroup.subtree_control');
  const enabled = (readText(control) ?? '').split(/\s+/);
  const wanted = ['memory', 'cpu', 'pids'].filter((c) => !enabled.includes(c));
  if (wanted.length === 0) return;
  try {
    writeFileSync(control, wanted.map((c) => `+${c}`).join(' '));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EBUSY') throw error;
    // Processes live in `dir` itself: move them to a leaf, then enable.
    const leaf = path.join(dir, 'service');
    mkdirSync(leaf, { recursive: true });
    for (const pid of procsUnder(dir, false)) {
      try {
        writeFileSync(path.join(leaf, 'cgroup.procs'), String(pid));
      } catch {
        // exited meanwhile
      }
    }
    writeFileSync(control, wanted.map((c) => `+${c}`).join(' '));
  }
}

/** The processes of a group, and of its subgroups when `deep`. */
function procsUnder(dir: string, deep = true): number[] {
  const own = (readText(path.join(dir, 'cgroup.procs')) ?? '')
    .split('\n')
    .filter((line) => line !== '')
    .map(Number);
  if (!deep) return own;
  let children: string[] = [];
  try {
    children = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    // no such group
  }
  return [...own, ...children.flatMap((child) => procsUnder(path.join(dir, child)))];
}

function removeDir(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * `sh` arguments that put the process in `dirs` (writing its pid to each `cgroup.procs`) before it execs
 * `command`: the group is joined before the program can fork, so nothing it starts escapes it. With
 * `keepShell` the shell runs `command` as its child instead, and ends with its status.
 */
export function joinCommand(
  dirs: readonly string[],
  command: readonly string[],
  keepShell = false,
): [string, string[]] {
  const run = keepShell ? '"$@"' : 'exec "$@"';
  const script = `while [ "$1" != -- ]; do echo $$ > "$1/cgroup.procs" || exit 125; shift; done; shift; ${run}`;
  return ['/bin/sh', ['-c', script, 'sh', ...dirs, '--', ...command]];
}
