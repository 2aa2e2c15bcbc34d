import { getApiClients, normaliseSession, unwrap, type Session, type StreamRequest } from '../api-client';

/** POST /stream: 200 means ready, 202 means pending (poll it). */
export async function createSession(body: StreamRequest): Promise<{ session: Session; ready: boolean }> {
  const { data, status } = await unwrap(getApiClients().stream.POST('/stream', { body }));
  const session = normaliseSession(data);
  return { session, ready: status === 200 && session.status.condition === 'ready' };
}
