/**
 * One service per data directory: two services adopting and stopping the same applications, and
 * writing the same state file, would undo each other's work. The lock names the holder by pid and
 * process start time, so a lock left behind by a crashed service (or a pid reused since) is stale.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isAlive, startTicks } from '../runners/process-group.ts';
import { PRIVATE_FILE_MODE } from '../private-files.ts';

interface LockFile {
  pid: number;
  startTicks?: string;
}

/** Thrown by `start()` when another live service holds the data directory. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
  ) {
    super(
      `Another Streamgate service (pid ${holderPid}) is using the data directory ${dataDir}; stop it first.`,
    );
  }
}

export class ServiceLock {
  private readonly file: string;

  constructor(private readonly dataDir: string) {
    this.file = path.join(dataDir, 'service.lock');
  }

  /** Takes the lock, replacing a stale one; throws DataDirInUseError when a live service holds it. */
  async acquire(): Promise<void> {
    const holder = await this.read();
    if (holder && holder.pid !== process.pid && isAlive(holder.pid)) {
      // Without a recorded start time the pid alone is trusted; with one, it must match.
      if (holder.startTicks === undefined || holder.startTicks === startTicks(holder.pid)) {
        throw new DataDirInUseError(this.dataDir, holder.pid);
      }
    }
    const mine: LockFile = { pid: process.pid, startTicks: startTicks(process.pid) };
    await writeFile(this.file, `${JSON.stringify(mine)}\n`, { mode: PRIVATE_FILE_MODE });
  }

  /** Gives the lock up if this process still holds it. */
  async release(): Promise<void> {
    const holder = await this.read();
    if (holder?.pid === process.pid) await rm(this.file, { force: true });
  }

  private async read(): Promise<LockFile | undefined> {
    try {
      const data = JSON.parse(await readFile(this.file, 'utf8')) as Partial<LockFile> | null;
      return typeof data?.pid === 'number' ? { pid: data.pid, startTicks: data.startTicks } : undefined;
    } catch {
      // Missing or unreadable: nobody holds it.
      return undefined;
    }
  }
}
