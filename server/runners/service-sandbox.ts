/**
 * The service's side of the sandbox (CONTRACT section 17): found once at start, it either makes each session's
 * control groups and hands each program's sandbox what it needs (the compiled seccomp filter, in a file only the
 * service's user reads), or says in one sentence why real programs are refused here. They never run bare.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SandboxKit } from '../../sandbox/availability.ts';
import { SessionCgroup, sessionGroups, type CgroupLimits } from '../../sandbox/cgroups.ts';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../private-files.ts';
import { sweepStaleDisplays } from '../../sandbox/leftovers.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class ServiceSandbox {
  private constructor(
    /** Why no sandbox can be made here (real programs are then refused); null when they run sandboxed. */
    readonly refusal: string | null,
    private readonly kit: (SandboxKit & { seccompFile: string }) | null,
  ) {}

  /** The sandbox found at start (`findSandboxKit()`), its filter written into `dataDir`. */
  static async prepare(dataDir: string, kit: SandboxKit | string): Promise<ServiceSandbox> {
    if (typeof kit === 'string') return new ServiceSandbox(kit, null);
    const dir = path.join(dataDir, 'sandbox');
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    await chmod(dir, PRIVATE_DIR_MODE);
    const seccompFile = path.join(dir, 'seccomp.bpf');
    try {
      await writeFile(seccompFile, kit.seccomp, { mode: PRIVATE_FILE_MODE });
    } catch (error) {
      // A full disk or a read-only data directory: the service runs, real programs are refused in words.
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      return new ServiceSandbox(
        `the seccomp filter could not be written into the data directory (${code})`,
        null,
      );
    }
    return new ServiceSandbox(null, { ...kit, seccompFile });
  }

  /**
   * For tests of the scheduling that start stand-in applications (`launch.command`) by the hundred: those run as
   * the service's user, unlimited. The service itself never uses this (server/main.ts).
   */
  static unsandboxedForTests(): ServiceSandbox {
    return new ServiceSandbox(null, null);
  }

  /** The sentence a launch of a real program gets where no sandbox can be made; null where it can. */
  refuses(appName: string): string | null {
    return (
      this.refusal && `${appName} cannot start: real programs run only in a sandbox, and ${this.refusal}.`
    );
  }

  /** The compiled filter and its file, when the service makes sandboxes. */
  get seccomp(): { bytes: Buffer; file: string } | null {
    return this.kit && { bytes: this.kit.seccomp, file: this.kit.seccompFile };
  }

  /** Makes the control groups of a session about to start, with its program's limits; null without a sandbox. */
  group(sessionId: string, limits: CgroupLimits): SessionCgroup | null {
    if (!this.kit) return null;
    const group = new SessionCgroup(this.kit.hierarchy, sessionId);
    group.create(limits);
    return group;
  }

  /**
   * Kills whatever is left of a session (a `setsid` child, the X server of a display host that was killed) and
   * removes its groups; then what such an X server left in /tmp (its lock, socket and cookie folder).
   */
  async release(sessionId: string): Promise<void> {
    if (!this.kit) return;
    await new SessionCgroup(this.kit.hierarchy, sessionId).destroy();
    // A host that ends well removes these itself; one killed outright cannot (a few ms of /proc reading).
    sweepStaleDisplays();
  }

  /** At start: the groups of sessions that are no longer running (the service was killed meanwhile). */
  async sweep(running: (sessionId: string) => boolean): Promise<string[]> {
    if (!this.kit) return [];
    // Session ids only: a display host started by hand names its own group `host-<id>`, and removes it itself.
    const stale = sessionGroups(this.kit.hierarchy).filter((id) => UUID.test(id) && !running(id));
    await Promise.all(stale.map((id) => this.release(id)));
    return stale;
  }
}
