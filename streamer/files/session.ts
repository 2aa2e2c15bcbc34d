/**
 * The session's files as both applications wire them: the folder made for the session, and each change of it
 * told to the session's owners connected (`filesChanged`, protocol/files.ts), in control or not, so that their list
 * follows what the program and other people do.
 */
import { FILES_CHANGED_EVENT, type FilesChangedPayload } from '../../protocol/files.ts';
import type { AppMessage } from '../../protocol/data-channels.ts';
import type { Audience } from '../../protocol/people.ts';
import type { FilesFolder } from './folder.ts';
import { makeSessionFolder } from './place.ts';

/** What telling the changes needs of the stream server (stream-server.ts `broadcast`). */
export interface Broadcaster {
  broadcast(message: AppMessage, to?: Audience): void;
}

/** The `messages` event of a change. */
export function filesChanged(usedBytes: number): AppMessage {
  const payload: FilesChangedPayload = { used_bytes: usedBytes };
  return { event_type: FILES_CHANGED_EVENT, payload: { ...payload } };
}

/**
 * Makes the session's folder of `filesMb`, owned by `owner` (the session's host user; null for this process's own,
 * the sample application's), and tells its changes to the owners among the viewers of what `stream` gives, once there is
 * one. Its `close` stops telling, then unmounts and removes the folder.
 */
export async function openSessionFiles(
  filesMb: number,
  owner: number | null,
  log: (line: string) => void,
): Promise<SessionFiles> {
  const folder = await makeSessionFolder({ filesMb, owner, log });
  return {
    folder,
    tellChangesTo: (stream) => void folder.watch((used) => stream.broadcast(filesChanged(used), 'owners')),
    close: () => folder.close(),
  };
}

export interface SessionFiles {
  folder: FilesFolder;
  /** Starts telling `stream`'s controlling viewers of each change; the folder's close stops it. */
  tellChangesTo(stream: Broadcaster): void;
  close(): Promise<void>;
}
