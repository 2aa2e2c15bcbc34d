/**
 * DELETE /stream/{session_id}/tickets?scope=watch: every watch-only link made so far stops working, and its
 * application drops whoever watches through one. Links made afterwards work.
 */
import { getApiClients, unwrap } from '../../../lib/api-client';

export async function stopSharing(sessionId: string): Promise<void> {
  await unwrap(
    getApiClients().stream.DELETE('/stream/{session_id}/tickets', {
      params: { path: { session_id: sessionId }, query: { scope: 'watch' } },
    }),
  );
}
