import { getApiClients, normaliseSession, unwrap, type Session } from '../api-client';

/**
 * POST /stream/{session_id}/extend: the session runs `minutes` longer (the service's default without them), up
 * to its profile's maximum lifetime; answers the session with its new `ends_at`.
 */
export async function extendSession(id: string, minutes?: number): Promise<Session> {
  const { data } = await unwrap(
    getApiClients().stream.POST('/stream/{session_id}/extend', {
      params: { path: { session_id: id } },
      ...(minutes === undefined ? {} : { body: { minutes } }),
    }),
  );
  return normaliseSession(data);
}
