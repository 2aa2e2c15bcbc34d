/**
 * Opening a file of the session's folder in its program: the viewer sends `openFile {name}` on the messages
 * channel, and the application answers `openedFileResult` (protocol/files.ts `OpenedFileResultPayload`).
 */

/** The answer in words, and whether it is good news; undefined for a payload that is not one. */
export function openedFileNotice(
  payload: Record<string, unknown>,
): { message: string; severity: 'success' | 'error' } | undefined {
  const { name, result, message } = payload;
  if (typeof name !== 'string') return undefined;
  if (result === 'success') return { message: `Opened ${name}.`, severity: 'success' };
  const why = typeof message === 'string' && message.trim() !== '' ? ` ${message}` : '';
  return { message: `The program could not open ${name}.${why}`, severity: 'error' };
}
