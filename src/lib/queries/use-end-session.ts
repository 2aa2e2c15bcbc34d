import { useMutation, useQueryClient } from '@tanstack/react-query';
import { deleteSession } from '../api/delete-session';
import { forgetSession } from '../session-history';
import { sessionQueries } from './session-queries';

/**
 * Ends a session, the one way every page does it: DELETE /stream/{id} (a session already gone counts as
 * ended), then this browser forgets it and the lists of sessions refresh. `mutate(id)`; a page adds what is
 * its own (close a dialog, leave the page) with `mutate(id, { onSuccess })`.
 */
export function useEndSession() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => deleteSession(id),
    onSuccess: (_nothing, id) => {
      forgetSession(id);
      void queryClient.invalidateQueries({ queryKey: sessionQueries.list().queryKey });
    },
  });
}
