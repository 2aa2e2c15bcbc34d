/**
 * A session's folder and what people do with it through the service (protocol/files.ts): list it, download one
 * file or the whole of it as a zip, upload a file, remove one. The process doing it runs as root over a folder
 * the session's program owns, so every entry is reached through descriptors (descriptors.ts) and never by a path
 * the program could have bent: no link is followed, no FIFO or device opened, no swapped folder entered.
 *
 * Uploads stream to a hidden file made for them alone (O_CREAT|O_EXCL|O_NOFOLLOW), which takes its name by a
 * rename once complete: a planted link of that name is replaced, never written through, and nothing half-written
 * is ever seen under a real name. The folder's limit holds by the kernel where it is a tmpfs of that size (the
 * display host as root), and by accounting on uploads where it is a plain folder.
 */
import { randomBytes } from 'node:crypto';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createWriteStream, type Stats } from 'node:fs';
import { open, rename, statfs, unlink, type FileHandle } from 'node:fs/promises';
import { ZipFile } from 'yazl';
import {
  fileNameProblem,
  formatBytes,
  PARTIAL_PREFIX,
  type FileEntry,
  type FilesListing,
} from '../../protocol/files.ts';
import { watchChanges } from './changes.ts';
import { inFolder, lstatIn, namesIn, openEntry, openFolder, openPath, walk } from './descriptors.ts';

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

/** A refusal with its HTTP status and a sentence a person can act on (`{"detail": ...}`). */
export class FilesError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface FolderSettings {
  /** The folder, made for the session (place.ts). */
  dir: string;
  limitBytes: number;
  /** The kernel bounds the folder (a tmpfs of `limitBytes`): what it holds is what the file system says. */
  bounded: boolean;
  /** The host user that owns what is uploaded (the session's), or null to leave it this process's. */
  owner: number | null;
  /** Undoes what made the folder (unmounts and removes it), after the folder's descriptor is closed. */
  release?: () => Promise<void>;
}

/** A download: the open file, its size at the open, and its name. */
export interface Download {
  handle: FileHandle;
  size: number;
}

const isPartial = (name: string) => name.startsWith(PARTIAL_PREFIX);

/** Names a person can act on: the program's own odd ones (a `\`, a control character) are neither listed nor zipped. */
const isListable = (name: string) => fileNameProblem(name) === null;

function entryOf(name: string, stats: Stats, kind: FileEntry['kind']): FileEntry {
  return {
    name,
    size: kind === 'file' && stats.isFile() ? stats.size : 0,
    modified: stats.mtime.toISOString(),
    kind,
  };
}

/**
 * Passes exactly `length` bytes on, counting them in `upload.written`; more, or fewer by the end, is an error
 * (the upload is then undone).
 */
function exactly(length: number, upload: { written: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      upload.written += chunk.length;
      if (upload.written > length)
        return callback(new FilesError(400, `The upload sent more than the ${length} bytes it announced.`));
      callback(null, chunk);
    },
    flush(callback: TransformCallback) {
      if (upload.written !== length)
        return callback(
          new FilesError(400, `The upload ended after ${upload.written} of its ${length} bytes.`),
        );
      callback();
    },
  });
}

export class FilesFolder {
  /** Uploads under way: what each announced and what it has written so far. */
  private readonly uploads = new Set<{ announced: number; written: number }>();
  private readonly watchers = new Set<() => void>();
  private closing: Promise<void> | null = null;

  private constructor(
    private readonly root: FileHandle,
    private readonly settings: FolderSettings,
  ) {}

  /** Opens the folder made at `settings.dir`. */
  static async open(settings: FolderSettings): Promise<FilesFolder> {
    return new FilesFolder(await openFolder(settings.dir), settings);
  }

  get dir(): string {
    return this.settings.dir;
  }

  get limitBytes(): number {
    return this.settings.limitBytes;
  }

  /** Whether the kernel bounds the folder, or accounting on uploads does. */
  get bounded(): boolean {
    return this.settings.bounded;
  }

  private get fd(): number {
    return this.root.fd;
  }

  /**
   * What the folder's files take now: the file system's own count on a tmpfs (what its limit applies to),
   * else the sizes of its regular files, uploads under way included.
   */
  async usedBytes(): Promise<number> {
    if (this.settings.bounded) {
      const fs = await statfs(`/proc/self/fd/${this.fd}`);
      return (fs.blocks - fs.bfree) * fs.bsize;
    }
    let used = 0;
    for await (const entry of walk(this.fd)) if (entry.kind === 'file') used += entry.stats.size;
    return used;
  }

  /** The folder's entries by name; uploads under way and names no one could ask for are left out. */
  async list(): Promise<FilesListing> {
    const items: FileEntry[] = [];
    for (const name of await namesIn(this.fd)) {
      if (!isListable(name)) continue;
      const stats = await lstatIn(this.fd, name);
      if (!stats) continue;
      // A link is listed as what a person sees in a file manager, a file, never followed to learn its size.
      if (stats.isFile() || stats.isSymbolicLink()) items.push(entryOf(name, stats, 'file'));
      else if (stats.isDirectory()) items.push(entryOf(name, stats, 'folder'));
    }
    items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { limit_bytes: this.settings.limitBytes, used_bytes: await this.usedBytes(), items };
  }

  /** Opens the regular file `name` for a download; 422 for a name not allowed, 404 for anything but a file. */
  async download(name: string): Promise<Download> {
    checkName(name);
    const file = await openEntry(this.fd, name, 'file');
    if (!file) throw new FilesError(404, `There is no file named “${name}” in the folder.`);
    return { handle: file.handle, size: file.stats.size };
  }

  /**
   * Writes `body`, which announced `length` bytes, as the file `name`, replacing one of that name; resolves with
   * its entry. Refuses (FilesError) a name not allowed (422), a file larger than the folder (413) or than what is
   * left (507), and undoes everything when the body is cut, longer or shorter than announced, or the folder fills.
   * `admitted` is called once the upload is accepted and its bytes start to flow.
   */
  async upload(
    name: string,
    body: Readable,
    length: number,
    admitted: () => void = () => undefined,
  ): Promise<FileEntry> {
    checkName(name);
    const limit = this.settings.limitBytes;
    if (length > limit)
      throw new FilesError(
        413,
        `“${name}” is ${formatBytes(length)}, larger than the whole folder (${formatBytes(limit)}).`,
      );
    const left = this.leftGiven(await this.usedBytes());
    if (length > left) throw new FilesError(507, notEnoughRoom(name, length, left));
    const upload = { announced: length, written: 0 };
    this.uploads.add(upload);
    const partial = `${PARTIAL_PREFIX}${randomBytes(12).toString('hex')}`;
    let handle: FileHandle | null = null;
    try {
      // Made here and now, for this upload alone: no name the program planted is opened.
      handle = await open(inFolder(this.fd, partial), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
      admitted();
      // On the bare descriptor: a stream of the FileHandle would hold it open (its close waits for the stream's).
      const sink = createWriteStream('', { fd: handle.fd, autoClose: false, emitClose: false });
      await pipeline(body, exactly(length, upload), sink);
      // The session's user owns it, so that the program may change or remove it.
      if (this.settings.owner !== null) await handle.chown(this.settings.owner, this.settings.owner);
      const stats = await handle.stat();
      await handle.close();
      handle = null;
      // rename replaces whatever has the name (a planted link included) without following it.
      await rename(inFolder(this.fd, partial), inFolder(this.fd, name));
      return entryOf(name, stats, 'file');
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await unlink(inFolder(this.fd, partial)).catch(() => undefined);
      throw await this.uploadFailure(error, name, length);
    } finally {
      this.uploads.delete(upload);
    }
  }

  /** What is left for a new upload: the limit less what the files take and what uploads under way will write. */
  private async leftBytes(): Promise<number> {
    return this.leftGiven(await this.usedBytes());
  }

  /**
   * What is left when the files take `used`; synchronous, so that an upload admitted on it is counted before
   * any other upload is weighed.
   */
  private leftGiven(used: number): number {
    let promised = 0;
    for (const upload of this.uploads) promised += Math.max(0, upload.announced - upload.written);
    return Math.max(0, this.settings.limitBytes - used - promised);
  }

  /** The refusal an upload's failure becomes. */
  private async uploadFailure(error: unknown, name: string, length: number): Promise<unknown> {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT')
      return new FilesError(507, notEnoughRoom(name, length, await this.leftBytes()));
    if (code === 'EISDIR')
      return new FilesError(409, `“${name}” is a folder in the session's folder; choose another name.`);
    return error;
  }

  /** Removes the file (or link) `name`; 404 when there is none, 409 for a folder. */
  async remove(name: string): Promise<void> {
    checkName(name);
    const stats = await lstatIn(this.fd, name);
    if (!stats) throw new FilesError(404, `There is no file named “${name}” in the folder.`);
    const folder = () =>
      new FilesError(409, `“${name}” is a folder; the program that made it can remove it.`);
    if (stats.isDirectory()) throw folder();
    try {
      // unlink removes a link itself, never what it points to.
      await unlink(inFolder(this.fd, name));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new FilesError(404, `There is no file named “${name}” in the folder.`);
      if (code === 'EISDIR' || code === 'EPERM') throw folder();
      throw error;
    }
  }

  /**
   * The whole folder as one zip archive, streamed: its folders and regular files (links, FIFOs, devices and
   * uploads under way left out), each file opened through descriptors only when its turn comes. Files are stored,
   * not deflated: what people keep in such a folder (pictures, models, archives) is mostly compressed already,
   * and deflating gigabytes would take the CPU the session's stream needs.
   */
  async zip(): Promise<Readable> {
    const zip = new ZipFile();
    for await (const entry of walk(this.fd, isPartial)) {
      if (!entry.path.every(isListable)) continue;
      const path = entry.path.join('/');
      const { mtime, mode } = entry.stats;
      if (entry.kind === 'folder') {
        zip.addEmptyDirectory(path, { mtime, mode });
        continue;
      }
      zip.addReadStreamLazy(path, { mtime, mode, compress: false }, (give) => {
        void openPath(this.fd, entry.path).then(
          // Gone or changed into something else since the walk: an empty entry rather than a broken archive.
          (file) => give(null, file ? file.handle.createReadStream() : Readable.from([])),
          (error: unknown) => give(error, Readable.from([])),
        );
      });
    }
    zip.end();
    const output = zip.outputStream as Readable;
    zip.on('error', (error: Error) => output.destroy(error));
    return output;
  }

  /** Calls `changed` with what the files take, each time the folder changes (coalesced, changes.ts). */
  watch(changed: (usedBytes: number) => void): () => void {
    const stop = watchChanges(`/proc/self/fd/${this.fd}`, isPartial, () => {
      void this.usedBytes().then(changed, () => undefined);
    });
    this.watchers.add(stop);
    return () => {
      this.watchers.delete(stop);
      stop();
    };
  }

  /** Stops watching, closes the folder's descriptor and releases the folder (unmounted, removed); idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const stop of this.watchers) stop();
      this.watchers.clear();
      await this.root.close();
      await this.settings.release?.();
    })();
    return this.closing;
  }
}

/** 422 with the sentence of protocol/files.ts for a name that cannot be a file of the folder. */
function checkName(name: string): void {
  const problem = fileNameProblem(name);
  if (problem) throw new FilesError(422, problem);
}

function notEnoughRoom(name: string, length: number, left: number): string {
  return (
    `“${name}” (${formatBytes(length)}) does not fit: ${formatBytes(left)} is left in the session's folder. ` +
    'Remove some files first.'
  );
}
