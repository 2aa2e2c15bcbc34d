/**
 * Where the display host runs its program: always in a sandbox (sandbox/bwrap.ts), never bare. The service says
 * how in its launch (protocol/launch.ts `SandboxSettings`, nothing secret in it): the network, the GPU, the
 * catalog's files, the limits, the control group it made for the program and its compiled seccomp filter. A host
 * started by hand (tests, benchmarks) makes what the service did not give: a control group of its own, removed
 * when it ends, with the default limits, and a filter of its own.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import {
  feedPipes,
  pipesFor,
  SANDBOX_HOME,
  sandboxLaunch,
  sessionUid,
  type SandboxSpec,
} from '../../sandbox/bwrap.ts';
import { FILES_FOLDER_NAME } from '../../protocol/files.ts';
import { findHierarchy, oomKillsIn, SessionCgroup, weighSession } from '../../sandbox/cgroups.ts';
import type { SandboxSettings } from '../../protocol/launch.ts';
import { findSandboxKit } from '../../sandbox/availability.ts';
import { spawnIsolated } from '../runtime/spawn-isolated.ts';

/** The program's sandbox, ready to start it. */
export interface ProgramSandbox {
  /** The host user the program runs as. */
  uid: number;
  /**
   * Starts `command` on the display whose socket and Xauthority are given, with the host folder of its sound
   * server (sound-server.ts) where it has one, and the session's folder (streamer/files/) writable at `~/Files`;
   * stdout inherited, stderr piped.
   */
  spawn(
    command: string[],
    env: Record<string, string>,
    display: { socket: string; authFile: string },
    soundDir?: string,
    filesDir?: string,
  ): ChildProcess;
  /**
   * Starts `command`, a server of the program's (its X server), in a sandbox of its own beside the program's: the
   * same user, control group and filter, no network, and of the host only the folders and files given (`mounts`).
   * stdout and stderr are piped.
   */
  spawnServer(command: string[], mounts: Pick<SandboxSpec, 'binds' | 'data'>): ChildProcess;
  /** Why the program ended, in words, from bwrap's exit status (128 + signal) and the memory limit's kills. */
  ending(
    code: number | null,
    signal: NodeJS.Signals | null,
  ): { signal: NodeJS.Signals | null; outOfMemory: string | null };
  /** Makes the session weigh `factor` times as much as another on the CPU (input-boost.ts); 1 is equal. */
  weigh(factor: number): void;
  /** Removes what this host made itself (its control group, killing what is left in it). */
  close(): Promise<void>;
}

/**
 * Prepares the sandbox of session `sessionId`'s program; rejects with the sentence that says why real programs
 * cannot run here.
 */
export async function prepareProgramSandbox(
  sessionId: string,
  signalingPort: number,
  settings: SandboxSettings,
): Promise<ProgramSandbox> {
  let seccomp: Buffer;
  let own: SessionCgroup | null = null;
  let dirs = settings.cgroup;
  if (settings.seccompFile && dirs) {
    seccomp = readFileSync(settings.seccompFile);
  } else {
    const kit = await findSandboxKit();
    if (typeof kit === 'string') throw new Error(`real programs cannot run here: ${kit}`);
    seccomp = kit.seccomp;
    if (!dirs) {
      const hierarchy = findHierarchy();
      if (typeof hierarchy === 'string') throw new Error(`real programs cannot run here: ${hierarchy}`);
      own = new SessionCgroup(hierarchy, `host-${sessionId}`);
      own.create(settings.limits);
      dirs = own.dirs('program');
    }
  }
  const group = dirs;
  /**
   * Kills by the kernel for memory before the latest program started (a restarted host shares none; a program
   * that replaced another, program-life.ts, is not blamed for its predecessor's).
   */
  const oomKills = () => oomKillsIn(group);
  let before = oomKills();
  const uid = sessionUid(signalingPort);
  return {
    uid,
    spawn(command, env, display, soundDir, filesDir) {
      before = oomKills();
      const launch = sandboxLaunch({
        command,
        env,
        uid,
        seccomp,
        cgroup: group,
        display: { socket: display.socket, xauthority: readFileSync(display.authFile) },
        sound: soundDir,
        binds: filesDir ? [{ host: filesDir, inside: `${SANDBOX_HOME}/${FILES_FOLDER_NAME}` }] : [],
        files: settings.files,
        network: settings.network,
        gpu: settings.gpu,
      });
      const child = spawnIsolated(launch.file, launch.args, {
        stdio: ['ignore', 'inherit', 'pipe', ...pipesFor(launch.extra)],
      });
      feedPipes(child, launch.extra);
      return child;
    },
    spawnServer(command, mounts) {
      const launch = sandboxLaunch({
        command,
        env: {},
        uid,
        seccomp,
        cgroup: group,
        ...mounts,
        network: false,
        gpu: false,
        // An X server needs a few MB of /tmp (its lock, the keymaps it compiles) and none of a home.
        sizes: { tmp: 16, shm: 1, home: 1 },
      });
      const child = spawnIsolated(launch.file, launch.args, {
        stdio: ['ignore', 'pipe', 'pipe', ...pipesFor(launch.extra)],
      });
      feedPipes(child, launch.extra);
      return child;
    },
    ending(code, signal) {
      // bwrap ends with 128 + the signal that ended its program.
      const bySignal =
        signal ??
        (code !== null && code > 128
          ? ((Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0] as NodeJS.Signals) ??
            null)
          : null);
      const outOfMemory =
        oomKills() > before ? `ran out of its ${settings.limits.memoryMb} MB of memory` : null;
      return { signal: bySignal, outOfMemory };
    },
    weigh(factor) {
      weighSession(group, factor);
    },
    async close() {
      await own?.destroy();
    },
  };
}
