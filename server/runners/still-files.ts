/**
 * Recent stills of the sessions (`GET /stream/{id}/still`): the service names a file per session,
 * `<data dir>/stills/<session id>.still`, in the application's launch (protocol/launch.ts `stillPath`); the
 * application replaces it every few seconds by a rename (streamer/media/still.ts: a PNG; an application of a
 * site's own may write a JPEG, and `stillType` tells them apart). The directory is the service's user's only,
 * and the file goes when the application does.
 */
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_DIR_MODE } from '../private-files.ts';
import { launchEnvironment } from '../../protocol/launch.ts';

/** The stills directory of a data directory. */
export function stillDirOf(dataDir: string): string {
  return path.join(dataDir, 'stills');
}

/** The stills directory beside a logs directory (`<data dir>/logs`), as the runner knows it. */
export function stillDirBeside(logDir: string): string {
  return stillDirOf(path.dirname(logDir));
}

/** The still of one session (ids are the service's own UUIDs). */
export function stillPath(stillDir: string, sessionId: string): string {
  return path.join(stillDir, `${sessionId}.still`);
}

/** A still's media type, from its first bytes: PNG's signature, else JPEG. */
export function stillType(data: Buffer): 'image/png' | 'image/jpeg' {
  return data.subarray(0, 8).equals(PNG_SIGNATURE) ? 'image/png' : 'image/jpeg';
}
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The application's environment entry, after making the private directory; none when it cannot be made. */
export function stillEnvironment(stillDir: string, sessionId: string): Record<string, string> {
  try {
    mkdirSync(stillDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    // An existing directory keeps its mode through mkdir.
    chmodSync(stillDir, PRIVATE_DIR_MODE);
  } catch {
    // A session without a still is better than no session.
    return {};
  }
  return launchEnvironment({ stillPath: stillPath(stillDir, sessionId) });
}

/**
 * Removes a session's still and a temporary file the application may have left. Synchronous: it runs as the
 * application exits, and must be done before a stopping service does.
 */
export function removeStill(stillDir: string, sessionId: string): void {
  const file = stillPath(stillDir, sessionId);
  try {
    rmSync(file, { force: true });
    rmSync(`${file}.tmp`, { force: true });
  } catch {
    // nothing to do about it; the next start tidies what is left
  }
}

/** The session's still, or null when there is none yet. */
export async function readStill(stillDir: string, sessionId: string): Promise<Buffer | null> {
  try {
    const data = await readFile(stillPath(stillDir, sessionId));
    return data.length > 0 ? data : null;
  } catch {
    return null;
  }
}

/** Removes the stills of sessions that `known` no longer knows (left by a service that did not stop cleanly). */
export async function tidyStills(stillDir: string, known: (sessionId: string) => boolean): Promise<void> {
  const names = await readdir(stillDir).catch(() => [] as string[]);
  for (const name of names) {
    // .jpg: the name before stills were made by the applications themselves.
    const id = /^(.+)\.(?:still|jpg)(\.tmp)?$/.exec(name)?.[1];
    if (id !== undefined && !known(id)) await rm(path.join(stillDir, name), { force: true });
  }
}
