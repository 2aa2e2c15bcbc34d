import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { sessionQueries } from '../../../lib/queries/session-queries';
import { browserCheckDeps } from '../api/browser-check-deps';
import { waitingReport, type StepReport } from '../api/check-report';
import { runCheck } from '../api/run-check';

/**
 * The check as the page runs it: once on opening, again at `run()`. A run in progress is given up when another
 * starts or the page is left (its test session is ended then too). Its steps are the check's own progress, not
 * the service's data, so they live in the page's state.
 */
export function useConnectionCheck(video: RefObject<HTMLVideoElement | null>) {
  const [steps, setSteps] = useState<StepReport[]>(waitingReport);
  // It runs as soon as the page opens.
  const [running, setRunning] = useState(true);
  const current = useRef<AbortController | undefined>(undefined);
  const queryClient = useQueryClient();

  const run = useCallback(() => {
    const element = video.current;
    if (!element) return setRunning(false);
    current.current?.abort();
    const controller = new AbortController();
    current.current = controller;
    setRunning(true);
    runCheck(
      browserCheckDeps(element),
      (next) => {
        if (!controller.signal.aborted) setSteps(next);
      },
      controller.signal,
    )
      .catch(() => undefined)
      .finally(() => {
        if (current.current === controller) setRunning(false);
        // A test session came and went: the app bar's list of sessions says so now, not at its next poll.
        void queryClient.invalidateQueries({ queryKey: sessionQueries.list().queryKey });
      });
  }, [video, queryClient]);

  useEffect(() => {
    run();
    // A closed tab runs no cleanup; this still ends the test session, as far as the page has time to.
    const leave = () => current.current?.abort();
    window.addEventListener('pagehide', leave);
    return () => {
      window.removeEventListener('pagehide', leave);
      leave();
      current.current = undefined;
    };
  }, [run]);

  return { steps, running, run };
}
