import { ApiError, getApiClients, unwrap } from '../api-client';

/** DELETE /stream/{session_id}; a session that is already gone counts as ended. */
export async function deleteSession(id: string): Promise<void> {
  try {
    await unwrap(
      getApiClients().stream.DELETE('/stream/{session_id}', { params: { path: { session_id: id } } }),
    );
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 410)) return;
    throw error;
  }
}
