import { getApiClients, normaliseSession, unwrap, type Session, type StreamRequest } from '../api-client';

/** POST /stream: the new session, ready (200, with routes) or pending (202). */
export async function createSession(body: StreamRequest): Promise<Session> {
  const { data } = await unwrap(getApiClients().stream.POST('/stream', { body }));
  return normaliseSession(data);
}
