/**
 * The real service (which serves the built portal and starts real applications) for one spec file, through the
 * one service harness (test-support/service.ts): a free port, its own working directory, the sample
 * applications' marks on, and everything it started stopped and removed afterwards.
 */
import type { ChildProcess } from 'node:child_process';
import { startService, type Service, type ServiceOptions } from '../../test-support/service';

/** What a spec may set: its catalog and the files beside it, tokens and more environment. */
export type StackOptions = Pick<ServiceOptions, 'env' | 'catalog' | 'beside' | 'written' | 'tokens'>;

export interface Stack {
  baseURL: string;
  apiURL: string;
  /** The working directory: the data directory is `state` in it, the catalog `catalog.yaml`. */
  dataDir: string;
  process: ChildProcess;
  /** Output of the service so far, for failure messages. */
  output(): string;
  /** Stops the service (which ends every session) and removes its files. */
  stop(): Promise<void>;
}

/** The harness's service as the specs know it. */
export function asStack(service: Service): Stack {
  return {
    baseURL: service.url,
    apiURL: service.api,
    dataDir: service.workDir,
    get process() {
      return service.child;
    },
    output: () => service.output(),
    stop: () => service.close(),
  };
}

/** Starts the service for the end-to-end tests and benchmarks. */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  return asStack(await startE2eService(options));
}

/** The harness's service with what every spec wants: its answers quiet, the sample applications' marks on. */
export function startE2eService(options: StackOptions, more: Partial<ServiceOptions> = {}): Promise<Service> {
  return startService({
    ...options,
    ...more,
    readyWithinMs: 30_000,
    // The tests and benchmarks read the sample applications' marks back from the picture.
    env: { STREAMGATE_TEST_MARKS: '1', ...options.env },
  });
}
