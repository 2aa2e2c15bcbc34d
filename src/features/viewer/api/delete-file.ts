import { getApiClients } from '../../../lib/api-client';
import { unwrapFiles } from './files-error';

/** DELETE /stream/{session_id}/files/{name}. */
export async function deleteFile(sessionId: string, name: string): Promise<void> {
  await unwrapFiles(
    getApiClients().stream.DELETE('/stream/{session_id}/files/{name}', {
      params: { path: { session_id: sessionId, name } },
    }),
  );
}
