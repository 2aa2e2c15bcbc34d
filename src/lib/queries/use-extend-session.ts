import { useMutation, useQueryClient } from '@tanstack/react-query';
import { extendSession } from '../api/extend-session';
import { sessionQueries, type SessionState } from './session-queries';

/**
 * Extends a session: POST /stream/{id}/extend, then every page that shows it knows its new end at once (its
 * detail takes the answer, the list refreshes). `mutate({ id, minutes })`; a refusal stays in the mutation's
 * error, for the page to say where the person asked.
 */
export function useExtendSession() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, minutes }: { id: string; minutes?: number }) => extendSession(id, minutes),
    onSuccess: (session, { id }) => {
      queryClient.setQueryData<SessionState>(sessionQueries.detail(id).queryKey, (old) =>
        // A session the page already knows has ended stays ended.
        old?.ended === undefined ? { session, ended: undefined } : old,
      );
      void queryClient.invalidateQueries({ queryKey: sessionQueries.list().queryKey });
    },
  });
}
