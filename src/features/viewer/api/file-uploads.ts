/**
 * The uploads of one viewer, one at a time in the order given, each a row that says how far it is, with a
 * Cancel; a failed one stays as a row with its sentence until dismissed. Framework-free: the viewer meets it
 * through `subscribe` and `rows`.
 */
import { filesErrorText } from './files-error';
import type { UploadOptions } from './upload-file';

/** One upload as the panel shows it. */
export type UploadRow = {
  id: number;
  name: string;
  size: number;
} & ({ state: 'waiting' } | { state: 'sending'; loaded: number } | { state: 'failed'; problem: string });

/** Sends one file (uploadFile, bound to its session). */
export type SendFile = (file: File, options: UploadOptions) => Promise<void>;

interface Job {
  file: File;
  /** Awaited before the row goes: what follows a success (the listing asked again, the file opened). */
  then: (() => Promise<void> | void) | undefined;
}

export class FileUploads {
  private list: UploadRow[] = [];
  private readonly jobs = new Map<number, Job>();
  private readonly listeners = new Set<() => void>();
  private current: { id: number; controller: AbortController } | undefined;
  private nextId = 1;

  constructor(private readonly send: SendFile) {}

  /** The rows, the same array until something changes (for useSyncExternalStore). */
  readonly rows = (): readonly UploadRow[] => this.list;

  /** Calls `listener` at each change; returns the unsubscribe function. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Bytes of the uploads still to send or being sent. */
  queuedBytes(): number {
    return this.list.reduce((sum, row) => (row.state === 'failed' ? sum : sum + row.size), 0);
  }

  /**
   * Queues `file`; with a `problem` it is never sent, and its row says why. `then` runs after it arrived and
   * before its row goes.
   */
  add(file: File, problem: string | null, then?: () => Promise<void> | void): void {
    const id = this.nextId++;
    const base = { id, name: file.name, size: file.size };
    if (problem !== null) {
      this.change([...this.list, { ...base, state: 'failed', problem }]);
      return;
    }
    this.jobs.set(id, { file, then });
    this.change([...this.list, { ...base, state: 'waiting' }]);
    this.next();
  }

  /** Stops an upload (sent or waiting): nothing of it stays, in the folder or in the rows. */
  cancel(id: number): void {
    if (this.current?.id === id) this.current.controller.abort();
    else this.forget(id);
  }

  /** Takes a failed row away. */
  dismiss(id: number): void {
    this.forget(id);
  }

  /** Stops every upload and forgets every row (the viewer is gone, or the session over); it may start anew. */
  stopAll(): void {
    this.jobs.clear();
    this.current?.controller.abort();
    this.change([]);
  }

  private forget(id: number): void {
    this.jobs.delete(id);
    this.change(this.list.filter((row) => row.id !== id));
  }

  private update(
    id: number,
    patch: { state: 'sending'; loaded: number } | { state: 'failed'; problem: string },
  ): void {
    this.change(this.list.map((r) => (r.id === id ? { id, name: r.name, size: r.size, ...patch } : r)));
  }

  private change(list: UploadRow[]): void {
    this.list = list;
    for (const listener of this.listeners) listener();
  }

  /** Starts the first waiting upload unless one is on its way. */
  private next(): void {
    if (this.current) return;
    const row = this.list.find((r) => r.state === 'waiting');
    const job = row && this.jobs.get(row.id);
    if (!row || !job) return;
    const controller = new AbortController();
    this.current = { id: row.id, controller };
    this.update(row.id, { state: 'sending', loaded: 0 });
    void this.run(row.id, job, controller);
  }

  private async run(id: number, job: Job, controller: AbortController): Promise<void> {
    // null: it arrived; undefined: it was cancelled; else why it failed.
    const problem = await this.send(job.file, {
      signal: controller.signal,
      onProgress: (loaded) => this.update(id, { state: 'sending', loaded }),
    }).then(
      () => null,
      (error: unknown) => (controller.signal.aborted ? undefined : filesErrorText(error)),
    );
    if (problem === null) {
      try {
        await job.then?.();
      } catch {
        // The file is there all the same: what follows it (a listing asked again) does not undo that.
      }
    }
    if (typeof problem === 'string') {
      this.jobs.delete(id);
      this.update(id, { state: 'failed', problem });
    } else this.forget(id);
    this.current = undefined;
    this.next();
  }
}
