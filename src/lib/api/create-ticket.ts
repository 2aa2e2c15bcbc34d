import { getApiClients, isApiError, unwrap } from '../api-client';
import type { components } from '../../../api/schema';

export type Ticket = components['schemas']['Ticket'];

/**
 * POST /stream/{session_id}/tickets: a viewer ticket for the session's application. Null when the
 * deployment issues no tickets (its API has no such endpoint: 404 or 405 for a session it just
 * reported), and the viewer then connects without one.
 */
export async function createTicket(
  sessionId: string,
  scope: 'control' | 'watch',
  signal?: AbortSignal,
): Promise<Ticket | null> {
  try {
    const { data } = await unwrap(
      getApiClients().stream.POST('/stream/{session_id}/tickets', {
        params: { path: { session_id: sessionId } },
        body: { scope },
        signal,
      }),
    );
    return data;
  } catch (error) {
    if (isApiError(error) && (error.status === 404 || error.status === 405)) return null;
    throw error;
  }
}
