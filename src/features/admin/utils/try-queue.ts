/**
 * The admin page's Tries, one at a time: a machine has few GPUs, and a Try timed while another holds one would
 * time a wait in the queue. "Try all" is a queue of Tries, each launched once the session of the one before has
 * ended (its GPU is free again). Framework-free, with its time and requests passed in, so that it can be tested
 * on fake time; `useTry` gives it to the page.
 */
import { isApiError } from '../../../lib/api-client';
import { describeError } from '../../../lib/error-text';
import type { TryOutcome, TryTarget } from '../api/try-outcomes';

/** A Try that has not shown its first frame within this long is given up. */
export const TRY_TIMEOUT_MS = 60_000;

/** The Try in progress: what it launches, since when, and its session once the service has made one. */
export interface RunningTry {
  target: TryTarget;
  /** When it was launched (`now()`): the first frame is timed from here. */
  startedAt: number;
  sessionId?: string;
  /** Its place in a "Try all" of more than one: the 3rd of 8. */
  batch?: { index: number; total: number };
}

/** How a Try ended, as the probe reports it (the time is added here). */
export type TryResult = { kind: 'frame' } | { kind: 'failed'; reason: string };

/** What the queue uses of the world. */
export interface TryQueueDeps {
  /** POST /stream of the target, as a Try. */
  create: (target: TryTarget) => Promise<{ id: string }>;
  /** Ends a session; settles once it has ended (its GPU is free). */
  end: (sessionId: string) => Promise<unknown>;
  /** Keeps a target's outcome. */
  record: (target: TryTarget, outcome: TryOutcome) => void;
  /** Told of every change of the Try in progress (undefined: none). */
  onChange: (running: RunningTry | undefined) => void;
  now?: () => number;
  timeoutMs?: number;
}

/** A refusal is the service's answer to the launch itself: a 4xx, or a 503 (full, or not allowed here). */
export function refusalOrFailure(error: unknown, at: number): TryOutcome {
  if (isApiError(error) && error.status !== 0 && (error.status < 500 || error.status === 503))
    return { kind: 'refused', reason: error.message, at };
  return { kind: 'failed', reason: describeError(error), at };
}

/**
 * `start` (one target) or `startAll` (several, in order) launch Tries; the page's probe follows the session
 * and calls `settle` with what it saw. Every way out of a Try (a result, the timeout, `cancel`) ends its
 * session; a session whose launch answers after its Try was given up is ended as soon as its id is known.
 * A result goes on to the next target; `cancel` drops the rest.
 */
export class TryQueue {
  private current: RunningTry | undefined;
  private rest: TryTarget[] = [];
  private total = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly now: () => number;
  private readonly timeoutMs: number;

  constructor(private readonly deps: TryQueueDeps) {
    this.now = deps.now ?? Date.now;
    this.timeoutMs = deps.timeoutMs ?? TRY_TIMEOUT_MS;
  }

  /** The Try in progress, if any. */
  get running(): RunningTry | undefined {
    return this.current;
  }

  /** Tries one target, unless a Try is in progress. */
  start(target: TryTarget): void {
    this.startAll([target]);
  }

  /** Tries `targets` one after another, unless a Try is in progress. */
  startAll(targets: readonly TryTarget[]): void {
    if (this.current || targets.length === 0) return;
    this.rest = [...targets];
    this.total = targets.length;
    this.next(Promise.resolve());
  }

  /** What the probe saw of the Try in progress. */
  settle(result: TryResult): void {
    const run = this.current;
    if (!run) return;
    const at = this.now();
    this.finish(result.kind === 'frame' ? { kind: 'frame', ms: at - run.startedAt, at } : { ...result, at });
  }

  /** Gives up the Try in progress, and those waiting, recording nothing. */
  cancel(): void {
    this.rest = [];
    this.finish(undefined);
  }

  private set(run: RunningTry | undefined): void {
    this.current = run;
    this.deps.onChange(run);
  }

  private endQuietly(sessionId: string): Promise<unknown> {
    // A session that cannot be ended now is the service's to end at its idle time; the queue goes on.
    return this.deps.end(sessionId).catch(() => undefined);
  }

  /** Shows the next target at once, and launches it once `after` (the last session's end) has settled. */
  private next(after: Promise<unknown>): void {
    const target = this.rest.shift();
    if (!target) {
      this.set(undefined);
      return;
    }
    const index = this.total - this.rest.length;
    const run: RunningTry = {
      target,
      startedAt: this.now(),
      ...(this.total > 1 ? { batch: { index, total: this.total } } : {}),
    };
    this.set(run);
    void after.then(() => this.launch(run));
  }

  private launch(waited: RunningTry): void {
    if (this.current !== waited) return;
    const run = { ...waited, startedAt: this.now() };
    this.set(run);
    this.timer = setTimeout(
      () => this.finish({ kind: 'timeout', seconds: this.timeoutMs / 1000, at: this.now() }),
      this.timeoutMs,
    );
    this.deps.create(run.target).then(
      (session) => {
        if (this.current === run) this.set({ ...run, sessionId: session.id });
        else void this.endQuietly(session.id);
      },
      (error: unknown) => {
        if (this.current === run) this.finish(refusalOrFailure(error, this.now()));
      },
    );
  }

  /** Ends the Try in progress, recording `outcome` where there is one; a result goes on to the next. */
  private finish(outcome: TryOutcome | undefined): void {
    const run = this.current;
    if (!run) return;
    clearTimeout(this.timer);
    this.current = undefined;
    if (outcome) this.deps.record(run.target, outcome);
    const ended = run.sessionId ? this.endQuietly(run.sessionId) : Promise.resolve();
    if (!outcome) this.rest = [];
    this.next(ended);
  }
}
