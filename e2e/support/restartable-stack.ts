/**
 * A service that a spec can crash (SIGKILL) and start again on the same port and data directory, as a host does
 * after a crash: the applications it started outlive it and the new service adopts them. The harness
 * (test-support/service.ts) does the work; this file gives the specs their names for it.
 */
import { freePortIn } from '../../test-support/ports';
import { startE2eService, type Stack, type StackOptions } from './stack';

/** A service that can be killed and started again where it was. */
export interface RestartableStack extends Omit<Stack, 'process' | 'dataDir'> {
  /** Kills the service process alone (not its applications) and waits for it to exit. */
  crash(): Promise<void>;
  /** Starts the service again on the same port and data directory and waits until it answers. */
  restart(): Promise<void>;
  /** Replaces the catalog file; the service reads it when it (re)starts. */
  writeCatalog(text: string): Promise<void>;
}

/** Starts a service that survives being killed: same port, same data directory, applications adopted. */
export async function startRestartableStack(options: StackOptions = {}): Promise<RestartableStack> {
  // Outside the system's ephemeral ports, so that nothing takes the port while the service is down.
  const service = await startE2eService(options, { port: await freePortIn(18300, 18399) });
  return {
    baseURL: service.url,
    apiURL: service.api,
    output: () => service.output(),
    crash: () => service.kill9(),
    restart: () => service.restart(),
    writeCatalog: (text) => service.writeCatalog(text),
    stop: async () => {
      // Left crashed (a spec failed between crash and restart), its applications still run: a service started
      // again adopts them, and its clean stop ends every session (CONTRACT 11).
      try {
        if (!service.running()) await service.restart();
      } finally {
        await service.close();
      }
    },
  };
}
