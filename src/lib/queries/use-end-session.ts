import { useMutation, useQueryClient } from '@tanstack/react-query';
import { deleteSession } from '../api/delete-session';
import { forgetSession } from '../session-history';
import { ENDED_HERE, sessionQueries } from './session-queries';

/**
 * Ends a session, the one way every page does it: DELETE /stream/{id} (a session already gone counts as
 * ended), then this browser forgets it, a page that shows it says it has ended and the lists of sessions
 * (running and ended) refresh. `mutate(id)`; a page adds what is its own (close a dialog, leave) with
 * `mutate(id, { onSuccess })`.
 */
export function useEndSession() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => deleteSession(id),
    onSuccess: async (_nothing, id) => {
      forgetSession(id);
      // A read of it under way (the viewer asks when its connection drops, as it does at the end) would
      // answer 404 after this and say "No session has this id" to the person who just ended it.
      await queryClient.cancelQueries({ queryKey: sessionQueries.detail(id).queryKey });
      // What the service said of it stays, so that a page still names what ran.
      queryClient.setQueryData(sessionQueries.detail(id).queryKey, (old) => ({
        session: old?.session,
        ended: ENDED_HERE,
      }));
      void queryClient.invalidateQueries({ queryKey: sessionQueries.list().queryKey });
      // It is one of the ended sessions now.
      void queryClient.invalidateQueries({ queryKey: [...sessionQueries.all(), 'ended'] });
    },
  });
}
