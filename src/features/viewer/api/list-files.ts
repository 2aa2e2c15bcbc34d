import type { FilesListing } from '../../../../protocol/files';
import { getApiClients } from '../../../lib/api-client';
import { unwrapFiles } from './files-error';

/** GET /stream/{session_id}/files: the folder's entries by name, and its use. */
export async function listFiles(sessionId: string, signal?: AbortSignal): Promise<FilesListing> {
  const { data } = await unwrapFiles(
    getApiClients().stream.GET('/stream/{session_id}/files', {
      params: { path: { session_id: sessionId } },
      signal,
    }),
  );
  return data as FilesListing;
}
