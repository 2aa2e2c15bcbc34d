/**
 * The connection check (CONTRACT §21), in order: the API, signaling through the service's door with a short
 * test session, the network's way to the relay, and a first frame. The first step that fails stops it; the
 * steps after it are skipped. A test session it launched is ended on every way out, abort included.
 */
import type { ViewerTicket } from '../../../player';
import { describeError } from '../../../lib/error-text';
import { askTheApi, type ApiFindings } from './ask-the-api';
import type { CheckDeps } from './check-deps';
import {
  STEP_IDS,
  STEP_STARTS,
  StepFailure,
  waitingReport,
  type StepId,
  type StepPass,
  type StepReport,
} from './check-report';
import { firstFrame } from './first-frame';
import { gatherCandidates } from './gather-candidates';
import { networkVerdict } from './network-verdict';
import { offerThroughDoor } from './offer-through-door';
import { testSession, type TestSession } from './test-session';
import { turnUrls } from './turn-url';

/** What the steps hand on to the steps after them. */
interface Found {
  api?: ApiFindings;
  test?: TestSession;
  ticket?: ViewerTicket;
}

function need<T>(value: T | undefined): T {
  // The runner runs a step only after the ones it needs have passed.
  if (value === undefined) throw new Error('An earlier step did not pass.');
  return value;
}

/** The failed report of a step, from its StepFailure or any other error. */
function failedReport(error: unknown): Pick<StepReport, 'detail' | 'advice'> {
  if (error instanceof StepFailure)
    return error.advice ? { detail: error.detail, advice: error.advice } : { detail: error.detail };
  return {
    detail: describeError(error),
    advice: 'Run the check again; if it fails again, tell the administrator what this page says.',
  };
}

/**
 * Runs the check; `report` gets every step's state at each change (a new array each time). Resolves to the last
 * report; rejects only when `signal` aborts (the page was left, or the check started again).
 */
export async function runCheck(
  deps: CheckDeps,
  report: (steps: StepReport[]) => void,
  signal: AbortSignal,
): Promise<StepReport[]> {
  let steps = waitingReport();
  const set = (id: StepId, next: Omit<StepReport, 'id' | 'name'>) => {
    steps = steps.map((s) => (s.id === id ? { id, name: s.name, ...next } : s));
    report(steps);
  };
  const found: Found = {};
  let launched: string | undefined;

  const run: Record<StepId, (progress: (detail: string) => void) => Promise<StepPass>> = {
    api: async () => {
      found.api = await askTheApi(deps.api, signal);
      return found.api.pass;
    },
    signaling: async (progress) => {
      const test = await testSession(
        deps.api,
        deps.clock,
        need(found.api),
        (id) => (launched = id),
        progress,
        signal,
      );
      found.test = test;
      progress(`Asking for a viewer ticket for ${test.words}.`);
      try {
        found.ticket = await deps.api.viewerTicket(test.session.id, 'control');
      } catch (error) {
        signal.throwIfAborted();
        throw new StepFailure(
          `The service gave no viewer ticket for ${test.words}: ${describeError(error)}`,
          'Run the check again; if it fails again, tell the administrator what this page says.',
        );
      }
      progress(`Sending an offer through the service for ${test.words}.`);
      const ms = await offerThroughDoor(deps, deps.api.doorOf(test.session.id).url, found.ticket, signal);
      return {
        detail: `Tested with ${test.words}. The service answered an offer through its door in ${ms} ms.`,
      };
    },
    network: async (progress) => {
      const iceServers = found.ticket?.iceServers ?? [];
      progress('Gathering candidates with the service’s relays.');
      return networkVerdict(turnUrls(iceServers), await gatherCandidates(deps, iceServers, signal));
    },
    frame: () => firstFrame(deps, need(found.test).session, signal),
  };

  report(steps);
  let failed = false;
  try {
    for (const id of STEP_IDS) {
      if (failed) {
        set(id, { status: 'skipped', detail: 'An earlier step failed.' });
        continue;
      }
      set(id, { status: 'running', detail: STEP_STARTS[id] });
      try {
        const pass = await run[id]((detail) => set(id, { status: 'running', detail }));
        set(id, { status: 'passed', ...pass });
      } catch (error) {
        signal.throwIfAborted();
        failed = true;
        set(id, { status: 'failed', ...failedReport(error) });
      }
    }
    return steps;
  } finally {
    // A session that would run on for nobody: ended whatever happened. One that was already gone is fine.
    if (launched) await deps.api.deleteSession(launched).catch(() => undefined);
  }
}
