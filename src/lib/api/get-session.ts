import { getApiClients, normaliseSession, unwrap, type Session } from '../api-client';

/** GET /stream/{session_id}: 200 when ready, 202 (the same body, without routes) while pending. */
export async function getSession(id: string, signal?: AbortSignal): Promise<Session> {
  const { data } = await unwrap(
    getApiClients().stream.GET('/stream/{session_id}', { params: { path: { session_id: id } }, signal }),
  );
  return normaliseSession(data);
}
