/**
 * One private X display per session: Xvfb at the profile's maximum size, on a display number it picks
 * itself (-displayfd, so two sessions never race for one), reachable only with a cookie of its own
 * (MIT-MAGIC-COOKIE-1 in a file only this user can read), and gone with its socket and lock file on
 * every way out.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnIsolated } from '../runtime/spawn-isolated.ts';
import { stopChild } from '../runtime/lifecycle.ts';
import type { ProgramSandbox } from './program-sandbox.ts';
import {
  FRAMEBUFFER_DIR_PREFIX,
  readFileSafe,
  removeLeftovers,
  X_DIR_PREFIX,
} from '../../sandbox/leftovers.ts';
import { xauthority } from './xauthority.ts';

export interface XServer {
  /** `:N` */
  display: string;
  /** The display's socket in the file system (a sandbox binds it; its abstract twin stays in this network namespace). */
  socket: string;
  /** The Xauthority file with the cookie every client of this display is given (`cookieOf`). */
  authFile: string;
  pid: number;
  /** The screen's pixels as a file this process reads, or null where the server cannot offer them. */
  framebuffer: Framebuffer | null;
  /** Resolves with a reason when the server exits on its own. */
  exited: Promise<string>;
  /** Stops the server and removes what it leaves behind; idempotent. */
  stop(): Promise<void>;
}

/**
 * The X server's screen itself: Xvfb keeps its framebuffer in a memory-mapped file (-fbdir, an XWD image), of
 * which this process holds a descriptor. Its pixels are read there without asking the server for a copy.
 */
export interface Framebuffer {
  fd: number;
  /** Where the first pixel is in the file. */
  offset: number;
  /** Bytes from one row to the next. */
  stride: number;
  width: number;
  height: number;
}

/** Reads the XWD header Xvfb writes at the start of its -fbdir file (25 big-endian 32-bit fields). */
export function framebufferOf(fd: number): Framebuffer | null {
  const header = Buffer.alloc(100);
  if (readSync(fd, header, 0, header.length, 0) < header.length) return null;
  const field = (i: number) => header.readUInt32BE(i * 4);
  // XWD version 7, ZPixmap (2), depth 24 at 32 bits a pixel: the layout the capture's frames have.
  if (field(1) !== 7 || field(2) !== 2 || field(3) !== 24 || field(11) !== 32) return null;
  // The pixels follow the header and the colour map, whose entries (XWDColor) are 12 bytes each.
  return { fd, offset: field(0) + field(19) * 12, stride: field(12), width: field(4), height: field(5) };
}

/** The directory for Xvfb's framebuffer file: memory (/dev/shm) where there is one, so nothing is written back to a disk. */
function framebufferDir(): string {
  const shm = '/dev/shm';
  return mkdtempSync(path.join(existsSync(shm) ? shm : tmpdir(), `${FRAMEBUFFER_DIR_PREFIX}${process.pid}-`));
}

/** The first process named `name` (its `comm`) among `root`'s descendants, breadth first; undefined if none. */
export function descendantNamed(root: number, name: string): number | undefined {
  const queue = [root];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (next !== root && readFileSafe(`/proc/${next}/comm`).trim() === name) return next;
    queue.push(
      ...readFileSafe(`/proc/${next}/task/${next}/children`)
        .split(' ')
        .filter((word) => word !== '')
        .map(Number),
    );
  }
  return undefined;
}

/**
 * Opens the framebuffer file of the server that writes into `dir`, then removes the file and `dir`: the
 * server's mapping and this descriptor keep the pixels, and nothing is left behind however the two end.
 */
function openFramebuffer(dir: string): Framebuffer | null {
  const file = path.join(dir, 'Xvfb_screen0');
  let fd: number | null = null;
  try {
    fd = openSync(file, 'r');
    const framebuffer = framebufferOf(fd);
    if (!framebuffer) closeSync(fd);
    return framebuffer;
  } catch {
    if (fd !== null) closeSync(fd);
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The last line of Xvfb's error output that says why it ended. Its complaint that it could not remove its
 * framebuffer file comes last on every exit (this host removed the file at start, `openFramebuffer`).
 */
export function lastWords(stderr: string): string {
  const lines = stderr.trim().split('\n');
  return lines.filter((line) => !/^unlink .*Xvfb_screen\d+ failed/.test(line)).pop() ?? lines.pop() ?? '';
}

/**
 * Where an X server runs: in its session's sandbox (program-sandbox.ts), as the session's user, in its control
 * group, or, without one (tests of the capture, benches that compare), on the host as this process's user.
 */
export type XServerPlace = Pick<ProgramSandbox, 'uid' | 'spawnServer' | 'ending'>;

/** Where a sandboxed X server finds its folders and cookie (its own /tmp holds its lock and compiled keymaps). */
const INSIDE = { sockets: '/tmp/.X11-unix', framebuffer: '/run/x/fb', auth: '/run/x/Xauthority' };

/**
 * What an X server is given: its arguments, with the paths of its framebuffer folder and cookie where it sees
 * them, and the host folder its sockets appear in.
 */
interface XLaunch {
  child: ChildProcess;
  socketDir: string;
}

/** Xvfb on the host, as this process's user: its socket in the machine's /tmp/.X11-unix. */
function onHost(args: string[], fbDir: string, authFile: string): XLaunch {
  const child = spawnIsolated('Xvfb', [...args, '-fbdir', fbDir, '-auth', authFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { child, socketDir: '/tmp/.X11-unix' };
}

/**
 * Xvfb in the session's sandbox: it sees the system read-only, its framebuffer and socket folders (made here,
 * owned by the session's user, mode 0700) and its cookie, nothing of the program's or the host's files, and no
 * network. A font path a client sets can only name files it sees: /proc is its own, the program's /tmp is not
 * there. Its socket is the only way in, reached by its path (no abstract socket: `-nolisten local`).
 */
function inSandbox(
  args: string[],
  dir: string,
  fbDir: string,
  authFile: string,
  place: XServerPlace,
): XLaunch {
  const socketDir = path.join(dir, 'sockets');
  mkdirSync(socketDir, { mode: 0o700 });
  for (const own of [socketDir, fbDir]) chownSync(own, place.uid, place.uid);
  // The session's user enters the folder to reach its sockets; the cookie file in it stays this user's.
  chmodSync(dir, 0o711);
  const child = place.spawnServer(
    ['Xvfb', ...args, '-nolisten', 'local', '-fbdir', INSIDE.framebuffer, '-auth', INSIDE.auth],
    {
      binds: [
        { host: socketDir, inside: INSIDE.sockets },
        { host: fbDir, inside: INSIDE.framebuffer },
      ],
      data: [{ inside: INSIDE.auth, bytes: readFileSync(authFile) }],
    },
  );
  return { child, socketDir };
}

/** Starts Xvfb at `width`x`height`, in `place` when given; resolves once it accepts clients. */
export async function startXServer(
  width: number,
  height: number,
  log: (line: string) => void,
  /**
   * Offer OpenGL (GLX). Without it the server loads no OpenGL driver: Mesa's llvmpipe and LLVM, about 46 MB of
   * a server's memory, which a program that draws without OpenGL (a terminal) never uses.
   */
  opengl = true,
  place?: XServerPlace,
): Promise<XServer> {
  const dir = mkdtempSync(path.join(tmpdir(), `${X_DIR_PREFIX}${process.pid}-`));
  const authFile = path.join(dir, 'Xauthority');
  writeFileSync(authFile, xauthority(randomBytes(16)), { mode: 0o600 });
  const fbDir = framebufferDir();
  // -noreset: the server must outlive its last client (the encoder restarts on every resize).
  const args = [
    '-displayfd',
    '1',
    '-screen',
    '0',
    `${width}x${height}x24`,
    '-nolisten',
    'tcp',
    ...(opengl ? [] : ['-extension', 'GLX']),
    '-noreset',
    '-dpi',
    '96',
  ];
  let launched: XLaunch;
  try {
    launched = place ? inSandbox(args, dir, fbDir, authFile, place) : onHost(args, fbDir, authFile);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    rmSync(fbDir, { recursive: true, force: true });
    throw error;
  }
  const { child, socketDir } = launched;
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => {
      // A sandboxed server ends as bwrap does, with 128 + the signal; the kernel kills it past the memory limit
      // it shares with its program.
      const ending = place?.ending(code, signal);
      if (ending?.outOfMemory)
        return resolve(`the display ${ending.outOfMemory} (its program's and its own)`);
      resolve(`the X server exited (${ending?.signal ?? signal ?? code}): ${lastWords(stderr)}`);
    });
    child.once('error', (error) => resolve(`the X server could not start: ${error.message}`));
  });
  const number = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('the X server did not start within 10 s')), 10_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = /^(\d+)\n/.exec(out);
      if (line) {
        clearTimeout(timer);
        resolve(Number(line[1]));
      }
    });
    void exited.then((reason) => {
      clearTimeout(timer);
      reject(new Error(reason));
    });
  }).catch((error: Error) => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    rmSync(fbDir, { recursive: true, force: true });
    throw error;
  });
  const framebuffer = openFramebuffer(fbDir);
  const pid = place
    ? (descendantNamed(child.pid as number, 'Xvfb') ?? (child.pid as number))
    : (child.pid as number);
  log(
    `display :${number} (${width}x${height}) by Xvfb ${pid}${place ? ` in a sandbox as user ${place.uid}` : ''}`,
  );
  let stopping: Promise<void> | undefined;
  const socket = path.join(socketDir, `X${number}`);
  return {
    // A sandboxed server's socket is reached by its path; the machine's display :N, by its number.
    display: place ? socket : `:${number}`,
    socket,
    authFile,
    pid,
    framebuffer,
    exited,
    stop() {
      stopping ??= (async () => {
        await stopChild(child, 2_000);
        // A sandboxed server's lock and socket went with its own /tmp and its folder.
        if (!place) removeLeftovers(number, pid);
        if (framebuffer) closeSync(framebuffer.fd);
        rmSync(dir, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
}
