import { ZIP_FORMAT } from '../../../../protocol/files';
import { getApiClients } from '../../../lib/api-client';
import { saveBlob } from '../../../lib/save-blob';
import { unwrapFiles } from './files-error';

/**
 * GET /stream/{session_id}/files/{name}, fetched with the caller's credential as every request is, then saved
 * under its own name: the token stays in the request's header, never in a link.
 */
export async function downloadFile(sessionId: string, name: string): Promise<void> {
  const { data } = await unwrapFiles(
    getApiClients().stream.GET('/stream/{session_id}/files/{name}', {
      params: { path: { session_id: sessionId, name } },
      parseAs: 'blob',
    }),
  );
  saveBlob(data, name);
}

/** The name of the whole folder's archive on this device. */
export function zipName(sessionId: string): string {
  return `files-${sessionId}.zip`;
}

/** GET /stream/{session_id}/files?format=zip: the whole folder as one zip archive, saved as `zipName`. */
export async function downloadAllFiles(sessionId: string): Promise<void> {
  const { data } = await unwrapFiles(
    getApiClients().stream.GET('/stream/{session_id}/files', {
      params: { path: { session_id: sessionId }, query: { format: ZIP_FORMAT } },
      parseAs: 'blob',
    }),
  );
  saveBlob(data as Blob, zipName(sessionId));
}
