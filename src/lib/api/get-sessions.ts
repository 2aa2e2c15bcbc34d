import { getApiClients, normaliseList, normaliseSession, unwrap, type Session } from '../api-client';

/**
 * GET /stream, an extension of the seed API, so up to 500 a page. Rejects with the service's status
 * (404 or 405 where a deployment lacks the list) so that callers choose their own fallback.
 */
export async function getSessions(signal?: AbortSignal): Promise<Session[]> {
  const { data } = await unwrap(
    getApiClients().stream.GET('/stream', { params: { query: { offset: 0, limit: 500 } }, signal }),
  );
  return normaliseList<Session>(data).items.map(normaliseSession);
}
