/**
 * The file a person chose in the launch wizard to open in the new session ("Open a file of yours"), kept in
 * this tab's memory only, by session id, until the viewer has put it into the session's folder. A File cannot
 * live in a URL or in storage, and need not: after a reload it is gone, and the person can still upload it
 * from the viewer's Files panel.
 */
const chosen = new Map<string, File>();

/** Keeps `file` for the session just launched. */
export function keepLaunchFile(sessionId: string, file: File): void {
  chosen.set(sessionId, file);
}

/** The file kept for `sessionId`, handed over once: the caller uploads it, and no one else will. */
export function takeLaunchFile(sessionId: string): File | undefined {
  const file = chosen.get(sessionId);
  chosen.delete(sessionId);
  return file;
}
