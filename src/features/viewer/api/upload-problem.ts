import { fileNameProblem, formatBytes, type FilesListing } from '../../../../protocol/files';

/** What the portal knows of the folder's room before sending: its listing, and what is on its way already. */
export interface FolderRoom {
  listing: FilesListing | undefined;
  /** Bytes of the uploads waiting or being sent. */
  queued: number;
}

/**
 * Why `file` would be refused, in a sentence, before a byte is sent; null where the portal sees no reason
 * (the service has the last word). A file that replaces one of its name frees that one's bytes.
 */
export function uploadProblem(file: { name: string; size: number }, room: FolderRoom): string | null {
  const named = fileNameProblem(file.name);
  if (named !== null) return named;
  const { listing } = room;
  if (listing === undefined) return null;
  if (file.size > listing.limit_bytes)
    return `This file (${formatBytes(file.size)}) is larger than the session’s whole folder (${formatBytes(listing.limit_bytes)}): it cannot go in.`;
  const replaced = listing.items.find((e) => e.name === file.name && e.kind === 'file')?.size ?? 0;
  const left = Math.max(0, listing.limit_bytes - listing.used_bytes - room.queued);
  if (file.size > left + replaced)
    return `This file (${formatBytes(file.size)}) does not fit: ${formatBytes(left)} of the folder’s ${formatBytes(listing.limit_bytes)} are left. Delete files to make room, then try again.`;
  return null;
}
