/**
 * The sandbox a session's program runs in (CONTRACT section 17), made by bubblewrap (`bwrap`, Debian's
 * bubblewrap): the tool Flatpak runs every application in, small enough to read, that needs no daemon and
 * no privilege of its own. Each program gets:
 *
 * - a user of its own on the host (never root, never the service's user), switched to by `setpriv` before
 *   bwrap runs, and inside new user, pid, ipc, uts, cgroup, mount and network namespaces: user 1000 of a
 *   machine named `streamgate`, which sees only its own processes and cannot make further user namespaces;
 * - no new privileges, no capabilities, and the seccomp filter of seccomp.ts;
 * - a read-only system (`/usr`, `/etc`), an empty home, `/tmp` and `/dev/shm` of bounded sizes, its X display's
 *   socket and cookie, the files its catalog entry names (read-only, in its working directory), the GPU's
 *   device nodes when its profile has a GPU, and nothing else: not the service's data directory, the tokens
 *   file, the repository, another session or another process;
 * - no network unless its version says `network: true` (then the host's);
 * - its control group (cgroups.ts), joined before anything runs, so its limits hold from the first fork.
 *
 * Data (the filter, the cookie, `/etc/passwd`) reaches bwrap through pipes, and the program's files through a
 * mount namespace of the launch's own, so that the session's user needs no permission on any path of the service.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { joinCommand } from './cgroups.ts';

/** The user and group a program has inside its sandbox. */
export const SANDBOX_UID = 1000;
export const SANDBOX_HOME = '/home/user';
/** Where the program starts when its catalog entry names files: they are there, under their own names. */
export const SANDBOX_WORKDIR = '/app';
/** Where the session's sound server keeps its socket (PulseAudio's own place for it, under XDG_RUNTIME_DIR). */
export const SANDBOX_SOUND_DIR = `/run/user/${SANDBOX_UID}/pulse`;
/** First host uid of sessions; a session's is this plus its signaling port, so two running never share one. */
export const SESSION_UID_BASE = 1_500_000_000;

const MB = 1024 * 1024;

/** Where a sandbox's files are staged, in a mount namespace that only its own launch sees. */
const STAGE_DIR = '/run/streamgate-files';
/** `sh -c` script: $0 the stage, then pairs of source and name up to `--`, then the command. */
const STAGE =
  'mkdir -p "$0" && mount -t tmpfs -o size=1m,mode=0755 streamgate-files "$0" || exit 125; ' +
  'while [ "$1" != -- ]; do mkdir -p "$0/$(dirname "$2")"; ' +
  'if [ -d "$1" ]; then mkdir -p "$0/$2"; else : > "$0/$2"; fi; ' +
  'mount --bind "$1" "$0/$2" || exit 125; shift 2; done; shift; exec "$@"';

/** One program to run sandboxed. */
export interface SandboxSpec {
  /** The program and its arguments. */
  command: string[];
  /** Its environment, beside the sandbox's own (PATH, HOME, USER, DISPLAY...). */
  env: Record<string, string>;
  /** The host user it runs as. */
  uid: number;
  /** The compiled seccomp filter. */
  seccomp: Buffer;
  /** Control-group folders to join (cgroups.ts `dirs('program')`); none: the caller's. */
  cgroup: readonly string[];
  /** Its X display: the server's socket on the host and the cookie (an Xauthority file's bytes). */
  display?: { socket: string; xauthority: Buffer };
  /**
   * The host folder of its sound server (owned by `uid`, mode 0700), bound at SANDBOX_SOUND_DIR so that the
   * display host, outside, reaches the server's socket too.
   */
  sound?: string;
  /**
   * Host folders made for it (owned by `uid`), writable at the path given inside: an X server's socket and
   * framebuffer folders (streamer/display/x-server.ts).
   */
  binds?: readonly { host: string; inside: string }[];
  /** Read-only files of these bytes at the paths given inside (an X server's cookie). */
  data?: readonly { inside: string; bytes: Buffer }[];
  /** The catalog's files it may read: `root` is the catalog's folder, `names` are relative to it. */
  files?: { root: string; names: readonly string[] };
  network: boolean;
  /** The profile has a GPU: the device nodes of /dev/dri and NVIDIA's are visible. */
  gpu: boolean;
  /** Sizes of its writable memory-backed folders, in MB. */
  sizes?: { tmp: number; shm: number; home: number };
  /**
   * A shell stays bwrap's parent (`--die-with-parent` then follows the shell): for a program the service
   * starts itself, which must outlive a crash of the service to be adopted by the next one (CONTRACT §11).
   */
  keepParent?: boolean;
}

/** What to spawn: the file, its arguments, and what each descriptor from 3 up carries. */
export interface SandboxLaunch {
  file: string;
  args: string[];
  /** Descriptor 3 + i: a pipe on which these bytes are written (`feedPipes`). */
  extra: Buffer[];
}

/** The `stdio` entries from 3 up for `extra`: a pipe each. */
export function pipesFor(extra: readonly Buffer[]): 'pipe'[] {
  return extra.map(() => 'pipe');
}

/**
 * Writes each of `extra` on its pipe of `child`, descriptor `first` + i (3 unless the caller put pipes of its own
 * first), and closes it; a reader that is gone (bwrap refused to start) is no error.
 */
export function feedPipes(child: ChildProcess, extra: readonly Buffer[], first = 3): void {
  extra.forEach((data, i) => {
    const pipe = child.stdio[first + i] as Writable | null | undefined;
    pipe?.on('error', () => undefined);
    pipe?.end(data);
  });
}

const DEFAULT_SIZES = { tmp: 256, shm: 64, home: 256 };

/** Top-level system folders that are links into /usr on a merged-/usr system, or folders of their own. */
const SYSTEM_DIRS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

/** The command line that runs `spec.command` in its sandbox, and the bytes it reads on descriptors from 3 up. */
export function sandboxLaunch(spec: SandboxSpec, system = systemLayout()): SandboxLaunch {
  const extra: Buffer[] = [];
  const fd = (data: Buffer) => String(3 + extra.push(data) - 1);
  const sizes = spec.sizes ?? DEFAULT_SIZES;
  const args: string[] = [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(spec.network ? [] : ['--unshare-net']),
    '--disable-userns',
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_UID),
    '--hostname',
    'streamgate',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    ...system,
    '--ro-bind',
    '/etc',
    '/etc',
    '--ro-bind-data',
    fd(
      Buffer.from(
        `user:x:${SANDBOX_UID}:${SANDBOX_UID}:Session:${SANDBOX_HOME}:/bin/bash\nnobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\n`,
      ),
    ),
    '/etc/passwd',
    '--ro-bind-data',
    fd(Buffer.from(`user:x:${SANDBOX_UID}:\nnogroup:x:65534:\n`)),
    '/etc/group',
    '--ro-bind-data',
    fd(Buffer.from('streamgate\n')),
    '/etc/hostname',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(sizes.shm * MB),
    '--tmpfs',
    '/dev/shm',
    '--size',
    String(sizes.tmp * MB),
    '--tmpfs',
    '/tmp',
    '--size',
    String(sizes.home * MB),
    '--tmpfs',
    SANDBOX_HOME,
    '--dir',
    `/run/user/${SANDBOX_UID}`,
    '--chmod',
    '0700',
    `/run/user/${SANDBOX_UID}`,
  ];
  const env: Record<string, string> = {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: SANDBOX_HOME,
    USER: 'user',
    LOGNAME: 'user',
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    XDG_RUNTIME_DIR: `/run/user/${SANDBOX_UID}`,
  };
  if (spec.display) {
    // The display is :0 inside: its socket is the only one in the sandbox's /tmp/.X11-unix.
    args.push('--dir', '/tmp/.X11-unix', '--bind', spec.display.socket, '/tmp/.X11-unix/X0');
    args.push('--ro-bind-data', fd(spec.display.xauthority), `${SANDBOX_HOME}/.Xauthority`);
    Object.assign(env, { DISPLAY: ':0', XAUTHORITY: `${SANDBOX_HOME}/.Xauthority` });
  }
  if (spec.sound) args.push('--bind', spec.sound, SANDBOX_SOUND_DIR);
  for (const { host, inside } of spec.binds ?? []) args.push('--bind', host, inside);
  for (const { inside, bytes } of spec.data ?? []) args.push('--ro-bind-data', fd(bytes), inside);
  if (spec.gpu) {
    args.push('--dev-bind-try', '/dev/dri', '/dev/dri');
    for (const name of gpuNodes()) args.push('--dev-bind', `/dev/${name}`, `/dev/${name}`);
  }
  let workdir = SANDBOX_HOME;
  const staged: string[] = [];
  if (spec.files && spec.files.names.length > 0) {
    workdir = SANDBOX_WORKDIR;
    for (const name of spec.files.names) {
      staged.push(path.join(spec.files.root, name), name);
      args.push('--ro-bind', path.join(STAGE_DIR, name), path.join(workdir, name));
    }
  }
  args.push('--chdir', workdir, '--clearenv');
  for (const [name, value] of Object.entries({ ...env, ...spec.env })) args.push('--setenv', name, value);
  args.push('--seccomp', fd(spec.seccomp), '--', ...spec.command);
  let command = [
    'setpriv',
    `--reuid=${spec.uid}`,
    `--regid=${spec.uid}`,
    '--clear-groups',
    '--no-new-privs',
    'bwrap',
    ...args,
  ];
  if (staged.length > 0) {
    // The catalog's files may lie under folders that only the service's user can enter (a repository under
    // /root): still privileged, in a mount namespace of its own, the launch binds them into a folder anyone can
    // enter, from where bwrap, no longer privileged, binds them into the sandbox.
    const stage = ['/bin/sh', '-c', STAGE, STAGE_DIR, ...staged, '--'];
    command = ['unshare', '--mount', '--propagation', 'private', '--', ...stage, ...command];
  }
  const [file, shArgs] = joinCommand(spec.cgroup, command, spec.keepParent);
  return { file, args: shArgs, extra };
}

/** Mounts of the read-only system: /usr, and each top-level folder as a link into it or a folder of its own. */
export function systemLayout(root = '/'): string[] {
  const out = ['--ro-bind', '/usr', '/usr'];
  for (const name of SYSTEM_DIRS) {
    const full = path.join(root, name);
    let info;
    try {
      info = lstatSync(full);
    } catch {
      continue;
    }
    if (info.isSymbolicLink()) out.push('--symlink', readlinkSync(full), `/${name}`);
    else if (info.isDirectory()) out.push('--ro-bind', `/${name}`, `/${name}`);
  }
  // Programs installed outside Debian's packages (VirtualGL in /opt, say), read-only too.
  if (existsSync(path.join(root, 'opt'))) out.push('--ro-bind', '/opt', '/opt');
  // The system's font cache: without it every program would scan the fonts again at its start.
  if (existsSync(path.join(root, 'var/cache/fontconfig')))
    out.push('--ro-bind', '/var/cache/fontconfig', '/var/cache/fontconfig');
  return out;
}

/** NVIDIA's device nodes (nvidia0, nvidiactl, nvidia-uvm ...), where the driver is installed. */
function gpuNodes(): string[] {
  try {
    return readdirSync('/dev').filter((name) => /^nvidia(\d+|ctl|-uvm|-uvm-tools|-modeset)$/.test(name));
  } catch {
    return [];
  }
}

/** The host user of the session whose application listens on `signalingPort`. */
export function sessionUid(signalingPort: number): number {
  return SESSION_UID_BASE + signalingPort;
}
