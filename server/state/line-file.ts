/**
 * A file of lines in the data directory, written in the background: lines given together go out in one
 * append, one write at a time, so that a caller never waits for the disk and nothing is written out of
 * order. Optionally rotated by size (`file.1` the newest older file, up to `file.<keep>`), or replaced whole
 * (atomically, through a copy renamed over it). Readers run in the same queue, after every line given before.
 */
import { appendFile, chmod, open, rename, stat, writeFile } from 'node:fs/promises';
import { PRIVATE_FILE_MODE } from '../private-files.ts';

export interface LineFileOptions {
  /** Past this size the file is rotated before a line would pass it (with `keep` of 1 or more); absent: never. */
  maxBytes?: number;
  /** Older files kept by the rotation: `file.1` (the newest) to `file.<keep>`. */
  keep?: number;
  /** Told of each failed write; its lines are lost, the next ones are tried again. */
  onError?: (error: Error) => void;
}

export class LineFile {
  private pending: string[] = [];
  private scheduled = false;
  private tail: Promise<unknown> = Promise.resolve();
  /** Of the current file, read at its first write. */
  private size: number | undefined;

  constructor(
    readonly file: string,
    private readonly options: LineFileOptions = {},
  ) {}

  /** The current file, then the rotated ones, newest first. */
  get files(): string[] {
    const keep = this.options.keep ?? 0;
    return [this.file, ...Array.from({ length: keep }, (_, i) => `${this.file}.${i + 1}`)];
  }

  /** Queues one line (without its newline). */
  append(line: string): void {
    this.pending.push(`${line}\n`);
    if (this.scheduled) return;
    this.scheduled = true;
    void this.run(() => this.writePending());
  }

  /** Queues a replacement of the whole file by `lines`, after the lines queued so far. */
  replace(lines: readonly string[]): Promise<void> {
    return this.run(async () => {
      await this.writePending();
      const text = lines.map((line) => `${line}\n`).join('');
      const copy = `${this.file}.tmp-${process.pid}`;
      await writeFile(copy, text, { mode: PRIVATE_FILE_MODE });
      await rename(copy, this.file);
      this.size = Buffer.byteLength(text);
    }).catch((error: Error) => this.options.onError?.(error));
  }

  /** Runs `task` after everything queued so far (writes and other tasks), one at a time. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const done = this.tail.then(task);
    this.tail = done.catch(() => undefined);
    return done;
  }

  /** Resolves once every line queued so far is written (or its write failed). */
  flush(): Promise<void> {
    return this.run(() => this.writePending());
  }

  private async writePending(): Promise<void> {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const lines = this.pending;
    this.pending = [];
    try {
      let size = this.size ?? (await this.open());
      const { maxBytes = Infinity } = this.options;
      // Lines given together go out together, but for a rotation that one of them must wait for.
      let chunk = '';
      for (const line of lines) {
        const bytes = Buffer.byteLength(line);
        if (size > 0 && size + bytes > maxBytes) {
          if (chunk) await appendFile(this.file, chunk, { mode: PRIVATE_FILE_MODE });
          await this.rotate();
          [chunk, size] = ['', 0];
        }
        chunk += line;
        size += bytes;
      }
      await appendFile(this.file, chunk, { mode: PRIVATE_FILE_MODE });
      this.size = size;
    } catch (error) {
      this.size = undefined;
      this.options.onError?.(error as Error);
    }
  }

  /**
   * The current file's size, at its first write. A file made by hand or by an older version is closed to all
   * but the service, as its other files are; one whose last line a crash tore is ended, so that the next line
   * stands alone.
   */
  private async open(): Promise<number> {
    const size = await stat(this.file).then(
      (s) => s.size,
      () => -1,
    );
    if (size < 0) return 0;
    await chmod(this.file, PRIVATE_FILE_MODE);
    if (size === 0) return 0;
    const file = await open(this.file, 'r');
    const last = Buffer.alloc(1);
    await file.read(last, 0, 1, size - 1).finally(() => file.close());
    if (last[0] === 0x0a) return size;
    await appendFile(this.file, '\n');
    return size + 1;
  }

  /** `file.<keep-1>` becomes `file.<keep>` (the oldest is dropped) ... `file` becomes `file.1`. */
  private async rotate(): Promise<void> {
    const files = this.files;
    for (let i = files.length - 1; i > 0; i--) {
      await rename(files[i - 1] ?? '', files[i] ?? '').catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    }
  }
}
