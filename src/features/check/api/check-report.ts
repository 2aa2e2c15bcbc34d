/** What the connection check says about each of its steps, in words a person reads. */

/** The steps, in the order they run. */
export const STEP_IDS = ['api', 'signaling', 'network', 'frame'] as const;

/** One step of the check. */
export type StepId = (typeof STEP_IDS)[number];

/** The name a person reads for each step. */
export const STEP_NAMES: Record<StepId, string> = {
  api: "The service's API",
  signaling: 'Signaling through the service',
  network: 'Network: direct, relay over UDP, relay over TCP',
  frame: 'First frame',
};

/** What a step says as it starts, until it says more. */
export const STEP_STARTS: Record<StepId, string> = {
  api: 'Asking the catalog API and the streaming API.',
  signaling: 'Looking for a session to test with.',
  network: 'Gathering candidates.',
  frame: 'Playing the stream through the service.',
};

/** Where a step is. */
export type StepStatus = 'waiting' | 'running' | 'passed' | 'failed' | 'skipped';

/** One step as the page shows it. */
export interface StepReport {
  id: StepId;
  name: string;
  status: StepStatus;
  /** What the step found, or is doing now. */
  detail: string;
  /** A passed step's caveat: it works, but not as well as it could. */
  warning?: string;
  /** What to do about a failed step, where its detail does not already say it. */
  advice?: string;
}

/** Every step waiting, as before a run. */
export function waitingReport(): StepReport[] {
  return STEP_IDS.map((id) => ({ id, name: STEP_NAMES[id], status: 'waiting', detail: 'Not run yet.' }));
}

/** What a step found: its detail, and a caveat where it passed with one. */
export interface StepPass {
  detail: string;
  warning?: string;
}

/** A step that failed, in words: what happened and, where the sentence does not say it, what to do. */
export class StepFailure extends Error {
  override readonly name = 'StepFailure';
  constructor(
    readonly detail: string,
    readonly advice?: string,
  ) {
    super(detail);
  }
}
