/**
 * A real service process for the reliability suite, through the one service harness (test-support/service.ts):
 * on the suite's ports, the API alone (no portal) unless a test points it at one, its log at `info` and kept whole
 * so that tests can read it, killed hard and started again on the same working directory.
 */
import { rm } from 'node:fs/promises';
import { startService as startHarnessService, type Service } from '../../test-support/service.ts';

export { repoRoot as root, stopStartedServices, type Service } from '../../test-support/service.ts';
export { alive, displayHostOf, processesWith } from '../../test-support/processes.ts';
export { until } from '../../test-support/until.ts';

export interface ServiceOptions {
  /** Listen port, from the suite's range 18200-18299. */
  port: number;
  /** Session ports, from the suite's range 25000-25999. */
  sessionPorts: { first: number; last: number };
  catalog: string;
  tokens?: string;
  env?: Record<string, string>;
  /** Reuse this working directory (the data directory is `state` inside it). */
  workDir?: string;
  /** Run the service through `sh -c 'ulimit ...; exec node ...'` with this prefix. */
  shellPrefix?: string;
}

/** Starts the service and waits for /healthz; throws with its output if it does not come up. */
export function startService(options: ServiceOptions): Promise<Service> {
  return startHarnessService({ ...options, portal: false, logLevel: 'info' });
}

/** Removes a working directory made by startService. */
export async function removeWorkDir(workDir: string): Promise<void> {
  await rm(workDir, { recursive: true, force: true });
}
