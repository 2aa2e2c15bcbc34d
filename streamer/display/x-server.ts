/**
 * One private X display per session: Xvfb at the profile's maximum size, on a display number it picks
 * itself (-displayfd, so two sessions never race for one), reachable only with a cookie of its own
 * (MIT-MAGIC-COOKIE-1 in a file only this user can read), and gone with its socket and lock file on
 * every way out.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnIsolated } from '../spawn-isolated.ts';

export interface XServer {
  /** `:N` */
  display: string;
  /** The Xauthority file every client of this display reads (XAUTHORITY). */
  authFile: string;
  pid: number;
  /** Resolves with a reason when the server exits on its own. */
  exited: Promise<string>;
  /** Stops the server and removes what it leaves behind; idempotent. */
  stop(): Promise<void>;
}

/** One Xauthority entry for any address and display (FamilyWild), as `xauth add . <key>` writes. */
function xauthority(cookie: Buffer): Buffer {
  const field = (data: Buffer) => {
    const length = Buffer.alloc(2);
    length.writeUInt16BE(data.length);
    return Buffer.concat([length, data]);
  };
  const family = Buffer.from([0xff, 0xff]);
  const empty = Buffer.alloc(0);
  return Buffer.concat([
    family,
    field(empty),
    field(empty),
    field(Buffer.from('MIT-MAGIC-COOKIE-1')),
    field(cookie),
  ]);
}

/** The files an X server of display `n` leaves in /tmp when it is killed outright. */
function leftovers(n: number): string[] {
  return [`/tmp/.X${n}-lock`, `/tmp/.X11-unix/X${n}`];
}

/** Removes display `n`'s lock and socket if the lock names `pid` (it was ours), or names no process. */
export function removeLeftovers(n: number, pid: number): void {
  const [lock, socket] = leftovers(n) as [string, string];
  let holder = NaN;
  try {
    holder = Number(readFileSync(lock, 'utf8').trim());
  } catch {
    // no lock: the server removed it itself
  }
  if (Number.isFinite(holder) && holder !== pid) {
    try {
      process.kill(holder, 0);
      return; // another live server holds this display now
    } catch {
      // a dead holder: the files are stale
    }
  }
  rmSync(lock, { force: true });
  rmSync(socket, { force: true });
}

/** Starts Xvfb at `width`x`height`; resolves once it accepts clients. */
export async function startXServer(
  width: number,
  height: number,
  log: (line: string) => void,
): Promise<XServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'streamgate-x-'));
  const authFile = path.join(dir, 'Xauthority');
  writeFileSync(authFile, xauthority(randomBytes(16)), { mode: 0o600 });
  const args = [
    '-displayfd',
    '1',
    '-screen',
    '0',
    `${width}x${height}x24`,
    '-nolisten',
    'tcp',
    '-auth',
    authFile,
  ];
  // -noreset: the server must outlive its last client (the encoder restarts on every resize).
  const child: ChildProcess = spawnIsolated('Xvfb', [...args, '-noreset', '-dpi', '96'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) =>
      resolve(`the X server exited (${signal ?? code}): ${stderr.trim().split('\n').pop() ?? ''}`),
    );
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
    throw error;
  });
  const pid = child.pid as number;
  log(`display :${number} (${width}x${height}) by Xvfb ${pid}`);
  let stopping: Promise<void> | undefined;
  return {
    display: `:${number}`,
    authFile,
    pid,
    exited,
    stop() {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const force = setTimeout(() => child.kill('SIGKILL'), 2_000);
          await exited;
          clearTimeout(force);
        }
        removeLeftovers(number, pid);
        rmSync(dir, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
}
