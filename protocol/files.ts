/**
 * A session's files (issue: files in and out): one folder per session, the program's `~/Files`, that people
 * fill and empty through the service. Defined once for the portal, the service and the applications that keep
 * the folder. Plain TypeScript, neither DOM nor Node.
 *
 * The service's routes (`{base}/stream/{id}/files...`, api/openapi.yaml) decide who may touch the files and
 * forward each call to the session's application, wherever it runs, on its signaling port under the same
 * paths (`/files`, `/files/<name>`) with a files ticket (protocol/viewer-ticket.ts `signFilesTicket`). Errors
 * are `{"detail": "<sentence>"}` at both.
 */

/** Where the program sees the folder, under its home (bwrap.ts SANDBOX_HOME). */
export const FILES_FOLDER_NAME = 'Files';
/** The folder's size when the profile says nothing (`settings.files_mb`). */
export const DEFAULT_FILES_MB = 512;
/** The largest `settings.files_mb` a profile may ask for. */
export const MAX_FILES_MB = 64 * 1024;
/** The longest name, in bytes of UTF-8 (a Linux file name's limit). */
export const MAX_FILE_NAME_BYTES = 255;
/**
 * Names of uploads still being written start with this: hidden from listings, refused as names, renamed to
 * their own name once complete, so that nothing half-written is ever seen under a real name.
 */
export const PARTIAL_PREFIX = '.streamgate-partial-';
/** The `messages` event an application sends its controlling viewers when the folder changed. */
export const FILES_CHANGED_EVENT = 'filesChanged';
/** `GET .../files?format=zip`: the whole folder as one zip archive. */
export const ZIP_FORMAT = 'zip';

/** One entry of the folder. */
export interface FileEntry {
  name: string;
  /** Bytes; 0 for folders. */
  size: number;
  /** Last change, RFC 3339. */
  modified: string;
  /** Folders (a program may make some) are listed, downloaded only within the zip of the whole folder. */
  kind: 'file' | 'folder';
}

/** `GET .../files`. */
export interface FilesListing {
  /** The folder's size limit and what its files take now, in bytes. */
  limit_bytes: number;
  used_bytes: number;
  /** By name. */
  items: FileEntry[];
}

/** `filesChanged`'s payload: what the folder's files take now. */
export interface FilesChangedPayload {
  used_bytes: number;
}

// C0 controls, DEL and C1 controls: never part of a name a person can read and type.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Why `name` cannot be a file of the folder, in a sentence, or null when it can. One component only: no
 * folders, so no path can lead out of the folder.
 */
export function fileNameProblem(name: string): string | null {
  if (name === '') return 'A file needs a name.';
  if (name === '.' || name === '..') return `“${name}” is not a file name.`;
  if (name.includes('/') || name.includes('\\'))
    return 'A file name cannot hold “/” or “\\”: files go straight into the folder.';
  if (CONTROL.test(name)) return 'A file name cannot hold control characters.';
  if (new TextEncoder().encode(name).length > MAX_FILE_NAME_BYTES)
    return `A file name can be at most ${MAX_FILE_NAME_BYTES} bytes long.`;
  if (name.startsWith(PARTIAL_PREFIX)) return `A file name cannot begin with “${PARTIAL_PREFIX}”.`;
  return null;
}

/** A size in words: 0 B, 512 KB, 1.5 MB, 2 GB (powers of 1024, as a file manager shows them). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 10 ? 0 : 1;
  return `${value.toFixed(digits).replace(/\.0$/, '')} ${units[unit]}`;
}

/**
 * The `messages` event a controlling viewer sends to open one of the folder's files in the session's program
 * (a catalog version's `launch.display.opens`): the program is restarted with the file.
 */
export const OPEN_FILE_EVENT = 'openFile';
/** The application's answer to `openFile`, to that viewer alone. */
export const OPENED_FILE_RESULT_EVENT = 'openedFileResult';

/**
 * What a display program opens, as the service tells its display host (a catalog version's `launch.display.opens`
 * and `open_command`), only for a program that opens files: the extensions, lower case and without their dot, as
 * a comma list, and the command that opens one as a JSON array of strings, FILE_PLACEHOLDER in one argument.
 */
export const OPENS_ENV = 'STREAMGATE_OPENS';
export const OPEN_COMMAND_ENV = 'STREAMGATE_OPEN_COMMAND';
/** Replaced, in the open command, by the file's path as the program sees it (`~/Files/<name>`). */
export const FILE_PLACEHOLDER = '{file}';

/** `openFile`'s payload. */
export interface OpenFilePayload {
  /** A name of the folder (`fileNameProblem` allows it). */
  name: string;
}

/** `openedFileResult`'s payload: the program was restarted with the file, or why nothing changed. */
export type OpenedFileResultPayload =
  { result: 'success'; name: string } | { result: 'error'; name: string; message: string };
