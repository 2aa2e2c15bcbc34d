/**
 * Where a session's folder is kept, beside the display host's other runtime folders (its X server's, in the
 * system's temporary folder), named by the host's pid so that what a host killed outright leaves is known.
 *
 * As root (the display host, here and on a Slurm node) the folder is a tmpfs of the session's size, owned by the
 * session's user: the kernel bounds what the program writes there as well as what people upload. Where mounting
 * is refused (no privilege, a container without it) it is a plain folder owned by that user, whose limit only
 * uploads keep. The sample application, which has no program, keeps a plain folder of its own.
 */
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { FilesFolder } from './folder.ts';
import { FILES_DIR_PREFIX } from '../../sandbox/leftovers.ts';

const run = promisify(execFile);

const MB = 1024 * 1024;

export interface PlaceOptions {
  /** The folder's size (`STREAMGATE_FILES_MB`). */
  filesMb: number;
  /** The session's host user, who owns the folder; null: this process's own folder (the sample application). */
  owner: number | null;
  log: (line: string) => void;
  /** Where the folder is made; the system's temporary folder unless a test says otherwise. */
  root?: string;
}

/** Makes the session's folder and opens it; its `close` unmounts and removes it. */
export async function makeSessionFolder(options: PlaceOptions): Promise<FilesFolder> {
  const dir = mkdtempSync(path.join(options.root ?? tmpdir(), `${FILES_DIR_PREFIX}${process.pid}-`));
  const limitBytes = options.filesMb * MB;
  let mounted = false;
  try {
    if (options.owner !== null) {
      mounted = await mountTmpfs(dir, options.filesMb, options.owner);
      if (!mounted) chownSync(dir, options.owner, options.owner);
    }
    options.log(
      mounted
        ? `files: a ${options.filesMb} MB tmpfs for the session, bounded by the kernel`
        : `files: a plain folder of ${options.filesMb} MB for the session, its limit kept on uploads only`,
    );
    return await FilesFolder.open({
      dir,
      limitBytes,
      bounded: mounted,
      owner: options.owner,
      release: () => releaseFolder(dir, mounted),
    });
  } catch (error) {
    await releaseFolder(dir, mounted).catch(() => undefined);
    throw error;
  }
}

/** Mounts a tmpfs of `mb` for `uid` on `dir`; false where this process may not mount. */
async function mountTmpfs(dir: string, mb: number, uid: number): Promise<boolean> {
  if (process.getuid?.() !== 0) return false;
  // nosuid and nodev: nothing the program leaves there gains a privilege, nor opens a device of the host.
  const settings = `size=${mb}m,mode=0700,uid=${uid},gid=${uid},nosuid,nodev`;
  try {
    await run('mount', ['-t', 'tmpfs', '-o', settings, 'streamgate-files', dir], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/** Unmounts `dir` where it is a mount (lazily if something still holds it), then removes it and what it holds. */
async function releaseFolder(dir: string, mounted: boolean): Promise<void> {
  if (mounted) await run('umount', [dir]).catch(() => run('umount', ['--lazy', dir]));
  rmSync(dir, { recursive: true, force: true });
}
