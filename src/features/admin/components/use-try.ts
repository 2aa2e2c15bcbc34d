import { useEffect, useRef, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { createSession } from '../../../lib/api/create-session';
import { useEndSession } from '../../../lib/queries/use-end-session';
import { recordOutcome } from '../api/try-outcomes';
import { TryQueue, type RunningTry } from '../utils/try-queue';

/**
 * The page's Tries (`TryQueue`): `start` one, `startAll` several one after another, `settle` with what the
 * probe saw, `cancel`. Sessions are launched as Tries (`purpose: try`, which the audit log tells apart from a
 * person's launch, CONTRACT §22) and ended the portal's one way; outcomes go to this browser's storage.
 * Leaving the page gives the Tries up: their sessions must not run on for nobody.
 */
export function useTry() {
  const [running, setRunning] = useState<RunningTry>();
  const { mutateAsync: end } = useEndSession();
  const { mutateAsync: create } = useMutation({ mutationFn: createSession });
  // The latest functions of the hooks above, for the one queue of the page's life.
  const io = useRef({ end, create });
  useEffect(() => {
    io.current = { end, create };
  }, [end, create]);
  const [queue] = useState(
    () =>
      new TryQueue({
        create: (t) =>
          io.current.create({ id: t.app, version: t.version, profile: t.profile, purpose: 'try' }),
        end: (id) => io.current.end(id),
        record: recordOutcome,
        onChange: setRunning,
      }),
  );
  useEffect(() => () => queue.cancel(), [queue]);
  // Bound once: the cells and the probe get the same functions on every render.
  const [actions] = useState(() => ({
    start: queue.start.bind(queue),
    startAll: queue.startAll.bind(queue),
    settle: queue.settle.bind(queue),
    cancel: queue.cancel.bind(queue),
  }));
  return { running, ...actions };
}
