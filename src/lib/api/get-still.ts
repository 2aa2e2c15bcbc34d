import { getApiClients, isApiError, unwrap } from '../api-client';

/**
 * GET /stream/{session_id}/still: a recent still (PNG or JPEG) of the session's picture, as a Blob (an <img> cannot send
 * the bearer token itself). Null when there is none: no still yet (404), a session that failed (410), or a
 * deployment without the endpoint (404, 405). Other failures reject.
 */
export async function getSessionStill(sessionId: string, signal?: AbortSignal): Promise<Blob | null> {
  try {
    const { data } = await unwrap(
      getApiClients().stream.GET('/stream/{session_id}/still', {
        params: { path: { session_id: sessionId } },
        parseAs: 'blob',
        signal,
      }),
    );
    return data.size > 0 ? data : null;
  } catch (error) {
    if (isApiError(error) && [404, 405, 410].includes(error.status)) return null;
    throw error;
  }
}
