/**
 * Starts the real service (which serves the built portal and starts real applications) for one spec file,
 * on a free port with its own data directory, and stops it and everything it started afterwards.
 */
import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { freePort } from './ports';
import { launchService, prepareService, stopProcess, type StackOptions } from './service-process';

export type { StackOptions } from './service-process';

export interface Stack {
  baseURL: string;
  apiURL: string;
  dataDir: string;
  process: ChildProcess;
  /** Output of the service so far, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

let nextRange = 0;
/** A port range of its own for each stack, so that stacks of one run never share application ports. */
function portRange(): string {
  const first = 47000 + ((process.pid * 7 + nextRange++ * 40) % 900);
  return `${first}-${first + 39}`;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const port = await freePort();
  const { dataDir, env } = await prepareService(options, port, portRange());
  const baseURL = `http://127.0.0.1:${port}`;
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  let child: ChildProcess;
  try {
    child = await launchService(env, baseURL, collect, () => output);
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  const stop = async () => {
    await stopProcess(child, 'SIGTERM', 10_000);
    await rm(dataDir, { recursive: true, force: true });
  };
  return { baseURL, apiURL: `${baseURL}/api`, dataDir, process: child, output: () => output, stop };
}
