/**
 * What the service and a session's Slurm job write for each other in the shared directory (STREAMGATE_SLURM_DIR):
 * the launch (`<id>.spec.json`, by the service), where the application listens (`<id>.placed.json`) and how
 * it ended (`<id>.exit.json`), by the job. Only the service's user reads them.
 */
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PRIVATE_FILE_MODE } from '../private-files.ts';
import type { SessionRequest } from './runner.ts';
import type { AppName } from './app-bundles.ts';

/** The launch the service writes for its job (0600, in the shared directory only the service's user reads). */
export interface JobSpec {
  sessionId: string;
  request: SessionRequest;
  environment: Record<string, string>;
  /** The session's viewer secret, base64. */
  secret: string;
  portRange: { first: number; last: number };
  stopGraceMs: number;
  /** Real programs in a sandbox (always, but for the service's tests of scheduling with stand-ins). */
  sandboxed: boolean;
  /** The applications' working directory: the job's own folder would be the bundle's, not the repository. */
  appCwd: string;
  /** The service's bundles of the applications (app-bundles.ts), or null: the job runs them through tsx. */
  bundles: Record<AppName, string> | null;
  /** Each node's address as Slurm knew it at submission: the job binds its own without asking sinfo. */
  nodeAddrs: Record<string, string>;
}

export const specFile = (dir: string, id: string) => path.join(dir, `${id}.spec.json`);
/** The end of the name of the file where a job says where its application listens. */
export const PLACED = '.placed.json';
export const placedFile = (dir: string, id: string) => path.join(dir, `${id}${PLACED}`);
export const exitFile = (dir: string, id: string) => path.join(dir, `${id}.exit.json`);

/** Writes a file whole: the reader never sees half of it. */
export function writePrivate(file: string, value: unknown): void {
  writeFileSync(`${file}.tmp`, JSON.stringify(value), { mode: PRIVATE_FILE_MODE });
  // A rename: the service never reads half a file.
  renameSync(`${file}.tmp`, file);
}
