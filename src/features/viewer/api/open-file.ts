/**
 * Opening a file of the session's folder in its program: the viewer sends `openFile {name}` on the messages
 * channel, and the application answers `openedFileResult {result, name, message?}`.
 */

/** The event that asks the program to open a file of `~/Files`. */
export const OPEN_FILE_EVENT = 'openFile';
/** The application's answer to it. */
export const OPENED_FILE_RESULT_EVENT = 'openedFileResult';

/** The answer in words, and whether it is good news; undefined for a payload that is not one. */
export function openedFileNotice(
  payload: Record<string, unknown>,
): { message: string; severity: 'success' | 'error' } | undefined {
  const name = typeof payload.name === 'string' ? payload.name : undefined;
  if (name === undefined) return undefined;
  if (payload.result === 'success') return { message: `Opened ${name}.`, severity: 'success' };
  const why =
    typeof payload.message === 'string' && payload.message.trim() !== '' ? ` ${payload.message}` : '';
  return { message: `The program could not open ${name}.${why}`, severity: 'error' };
}
