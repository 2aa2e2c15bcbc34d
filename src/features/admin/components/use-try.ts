import { useCallback, useEffect, useRef, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { isApiError } from '../../../lib/api-client';
import { createSession } from '../../../lib/api/create-session';
import { describeError } from '../../../lib/error-text';
import { useEndSession } from '../../../lib/queries/use-end-session';
import { recordOutcome, type TryOutcome, type TryTarget } from '../api/try-outcomes';

/** A Try that has not shown its first frame within this long is given up. */
export const TRY_TIMEOUT_MS = 60_000;

/** The Try in progress: what it launches, since when, and its session once the service has made one. */
export interface RunningTry {
  target: TryTarget;
  /** `Date.now()` at the click: the first frame is timed from here. */
  startedAt: number;
  sessionId?: string;
}

/** How a Try ended, as the probe reports it (the time is added here). */
export type TryResult = { kind: 'frame' } | { kind: 'failed'; reason: string };

/** A refusal is the service's answer to the launch itself: a 4xx, or a 503 (full, or not allowed here). */
function refusalOrFailure(error: unknown): TryOutcome {
  const at = Date.now();
  if (isApiError(error) && error.status !== 0 && (error.status < 500 || error.status === 503))
    return { kind: 'refused', reason: error.message, at };
  return { kind: 'failed', reason: describeError(error), at };
}

/**
 * One Try at a time: `start` launches a session of the target (POST /stream) and gives it TRY_TIMEOUT_MS to
 * show a first frame; the page's probe follows the session and calls `settle` with what it saw. Every way
 * out (a result, the timeout, `cancel`, leaving the page) ends the session; a session whose launch answers
 * after the Try was given up is ended as soon as its id is known. Outcomes go to this browser's storage.
 */
export function useTry() {
  const [running, setRunning] = useState<RunningTry>();
  const current = useRef<RunningTry | undefined>(undefined);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const endSession = useEndSession();
  const { mutate: end } = endSession;
  const launch = useMutation({ mutationFn: createSession });
  const { mutateAsync: create } = launch;

  const update = useCallback((next: RunningTry | undefined) => {
    current.current = next;
    setRunning(next);
  }, []);

  /** Ends the Try in progress, recording `outcome` when there is one, and ends its session. */
  const stop = useCallback(
    (outcome?: TryOutcome) => {
      const run = current.current;
      if (!run) return;
      clearTimeout(timer.current);
      update(undefined);
      if (outcome) recordOutcome(run.target, outcome);
      if (run.sessionId) end(run.sessionId);
    },
    [end, update],
  );

  const start = useCallback(
    (target: TryTarget) => {
      if (current.current) return;
      const run: RunningTry = { target, startedAt: Date.now() };
      update(run);
      timer.current = setTimeout(
        () => stop({ kind: 'timeout', seconds: TRY_TIMEOUT_MS / 1000, at: Date.now() }),
        TRY_TIMEOUT_MS,
      );
      // `purpose: try` tells the audit log an admin's Try from a person's launch (CONTRACT §22).
      create({ id: target.app, version: target.version, profile: target.profile, purpose: 'try' }).then(
        (session) => {
          if (current.current !== run) end(session.id);
          else update({ ...run, sessionId: session.id });
        },
        (error: unknown) => {
          if (current.current === run) stop(refusalOrFailure(error));
        },
      );
    },
    [create, end, stop, update],
  );

  const settle = useCallback(
    (result: TryResult) => {
      const run = current.current;
      if (!run) return;
      const at = Date.now();
      stop(result.kind === 'frame' ? { kind: 'frame', ms: at - run.startedAt, at } : { ...result, at });
    },
    [stop],
  );

  const cancel = useCallback(() => stop(), [stop]);

  // Leaving the page gives the Try up: its session must not run on for nobody.
  useEffect(() => () => stop(), [stop]);

  return { running, start, settle, cancel };
}
