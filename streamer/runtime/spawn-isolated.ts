/**
 * Starts a child process that inherits no descriptor but its stdio.
 *
 * Node marks its own descriptors close-on-exec, but native libraries need not: libjuice (under
 * node-datachannel) opens the shared media socket without it. An encoder started while a viewer was
 * connected then held that socket open after the last viewer left, so the next viewer's PeerConnection
 * could not bind the media port, and libdatachannel aborted the whole application ("Failed to gather
 * local ICE candidates"). Here each such descriptor is replaced in the child by /dev/null before exec.
 */
import {
  spawn,
  type ChildProcess,
  type SpawnOptions,
  type StdioNull,
  type StdioPipe,
} from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';

/** O_CLOEXEC in the octal `flags` of /proc/<pid>/fdinfo/<fd>. */
const O_CLOEXEC = 0o2000000;

type Stdio = StdioPipe | StdioNull | number;

/** Descriptors of this process above stderr that an exec would hand down. Empty where /proc is absent. */
export function inheritableDescriptors(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
      if (flags && (parseInt(flags[1] as string, 8) & O_CLOEXEC) === 0) found.push(fd);
    } catch {
      // closed between the listing and the read (the listing's own descriptor among them)
    }
  }
  return found.sort((a, b) => a - b);
}

/**
 * What a child gets of this process's environment when the caller names none: where programs are and the
 * locale, nothing else. A session's processes never inherit an environment (issue: a sandbox's /proc/1/environ
 * once listed the service's whole environment), whatever this process was started with.
 */
export function plainEnvironment(): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8' };
}

/**
 * `spawn` with `stdio` for fds 0-2 (and any further ones the caller hands down), after which every inheritable
 * descriptor of this process is overwritten in the child (dup2 of /dev/null), so the exec'd program holds none of
 * them; and with the caller's environment, or the plain one, never this process's.
 */
export function spawnIsolated(
  file: string,
  args: readonly string[],
  options: Omit<SpawnOptions, 'stdio'> & { stdio: [Stdio, Stdio, Stdio, ...Stdio[]] },
): ChildProcess {
  options = { ...options, env: options.env ?? plainEnvironment() };
  // Descriptors the caller hands down on purpose (from 3 up) are not leaks.
  const leaks = inheritableDescriptors().filter((fd) => fd >= options.stdio.length);
  if (leaks.length === 0) return spawn(file, args, options);
  const devNull = openSync('/dev/null', 'r');
  try {
    const stdio: Stdio[] = [...options.stdio];
    const highest = leaks[leaks.length - 1] as number;
    // 'ignore' above fd 2 leaves a slot untouched; its descriptor (if any) is close-on-exec already.
    for (let fd = stdio.length; fd <= highest; fd++) stdio.push(leaks.includes(fd) ? devNull : 'ignore');
    return spawn(file, args, { ...options, stdio });
  } finally {
    // The child has its own copies once spawn returns.
    closeSync(devNull);
  }
}
