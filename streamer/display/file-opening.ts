/**
 * Which of the session's files its program opens, and how (a catalog version's `launch.display.opens` and
 * `open_command`, which the service passes in its launch, protocol/launch.ts): the rules an `openFile` request must
 * pass before the display host restarts the program with the file (program-life.ts).
 * Everything here is decided before the running program is touched, so a request that fails changes nothing.
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { SANDBOX_HOME } from '../../sandbox/bwrap.ts';
import type { AppMessage } from '../../protocol/data-channels.ts';
import {
  FILE_PLACEHOLDER,
  fileNameProblem,
  FILES_FOLDER_NAME,
  OPENED_FILE_RESULT_EVENT,
  type OpenedFileResultPayload,
} from '../../protocol/files.ts';
import type { FileOpening } from '../../protocol/launch.ts';
import type { ProgramLife } from './program-life.ts';

/** Where the program sees the folder's file `name`. */
export function sandboxPathOf(name: string): string {
  return `${SANDBOX_HOME}/${FILES_FOLDER_NAME}/${name}`;
}

/**
 * The command that opens `file` (a path in the sandbox): the open command with each FILE_PLACEHOLDER replaced,
 * or, without one, `program` with the path appended.
 */
export function openCommand(opening: FileOpening, program: readonly string[], file: string): string[] {
  if (!opening.command) return [...program, file];
  const holds = opening.command.some((word) => word.includes(FILE_PLACEHOLDER));
  if (!holds) return [...opening.command, file];
  return opening.command.map((word) => word.replaceAll(FILE_PLACEHOLDER, file));
}

/** The extension of `name` among `extensions` (the longest, case aside), or null. */
export function openedExtension(name: string, extensions: ReadonlySet<string>): string | null {
  const lower = name.toLowerCase();
  let found: string | null = null;
  for (const extension of extensions) {
    const suffix = `.${extension}`;
    // A name that is only the extension (".txt") is a hidden file with no extension.
    if (lower.length > suffix.length && lower.endsWith(suffix)) {
      if (!found || extension.length > found.length) found = extension;
    }
  }
  return found;
}

/** Why the program cannot open `name`, in a sentence, or null when it can (the folder is not looked at). */
export function openProblem(name: unknown, opening: FileOpening | null): string | null {
  if (!opening) return "This session's program does not open files.";
  if (typeof name !== 'string') return 'Say which file to open: its name in ~/Files.';
  const problem = fileNameProblem(name);
  if (problem) return problem;
  if (!openedExtension(name, opening.extensions)) {
    const list = [...opening.extensions].map((extension) => `.${extension}`).join(', ');
    return `This program opens only ${list} files: “${name}” is not one.`;
  }
  return null;
}

/**
 * Why `name` (a name `openProblem` allows) cannot be opened from the host's `folder`, or null: it must be a
 * file there, not a folder and not a link (which the program would follow to wherever it points).
 */
export function folderProblem(folder: string, name: string): string | null {
  try {
    const stat = lstatSync(path.join(folder, name));
    if (stat.isFile()) return null;
    return `“${name}” in ~/${FILES_FOLDER_NAME} is not a file the program can open.`;
  } catch {
    return `“${name}” is not in ~/${FILES_FOLDER_NAME}: upload it first.`;
  }
}

/** What opening a file needs of the session. */
export interface FileOpener {
  opening: FileOpening | null;
  /** The folder on the host that the program sees as ~/Files; null where the session has none. */
  folder: string | null;
  /** The program's own command, for an opening without a command of its own. */
  program: readonly string[];
  life: Pick<ProgramLife, 'replace'>;
}

/**
 * Handles `openFile`: checks the name, its extension and the folder, and only then restarts the program with
 * the file. Answers the `openedFileResult` for the viewer who asked.
 */
export async function openFile(name: unknown, opener: FileOpener): Promise<AppMessage> {
  const shown = typeof name === 'string' ? name : '';
  const refuse = (message: string): AppMessage => ({
    event_type: OPENED_FILE_RESULT_EVENT,
    payload: { result: 'error', name: shown, message } satisfies OpenedFileResultPayload,
  });
  const problem = openProblem(name, opener.opening);
  if (problem || !opener.opening) return refuse(problem ?? "This session's program does not open files.");
  const folder = opener.folder;
  if (!folder) return refuse(`This session has no ~/${FILES_FOLDER_NAME} folder.`);
  // The folder is looked at in the request's turn: an earlier request may be restarting the program meanwhile.
  const result = await opener.life.replace(
    openCommand(opener.opening, opener.program, sandboxPathOf(shown)),
    () => folderProblem(folder, shown),
  );
  if (result.outcome === 'refused') return refuse(result.reason);
  if (result.outcome === 'failed') return refuse(`“${shown}” could not be opened: ${result.reason}`);
  return {
    event_type: OPENED_FILE_RESULT_EVENT,
    payload: { result: 'success', name: shown } satisfies OpenedFileResultPayload,
  };
}
