/**
 * The sample application, the display host and a Slurm session's job, bundled once (esbuild) so that each
 * session starts plain JavaScript instead of compiling TypeScript through tsx at every launch: about half the
 * time from spawn to ready. The service builds the bundles at start when their sources are newer; until then
 * (or in tests that never start the service) they run from their sources through tsx. A Slurm job is told the
 * bundles the service built (`adoptAppBundles`): it finds them in the repository the nodes share.
 */
import { existsSync, readdirSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export type AppName = 'streamer' | 'display' | 'slurm-job';

const ENTRIES: Record<AppName, string> = {
  streamer: 'streamer/sample/main.ts',
  display: 'streamer/display/main.ts',
  'slurm-job': 'server/runners/slurm-job.ts',
};
/** Native or CommonJS packages stay in node_modules, loaded as they are (esbuild finds its own binary there). */
const EXTERNAL = ['node-datachannel', '@napi-rs/canvas', 'x11', 'opusscript', 'esbuild', 'yazl', 'pngjs'];
const SOURCES = ['streamer', 'protocol', 'sandbox', 'server'];
const ROOT = path.resolve(import.meta.dirname, '../..');
/** tsx's loader by its address, so that it is found from any working directory. */
const TSX = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

let bundled: Record<AppName, string> | null = null;

function bundlePath(root: string, app: AppName): string {
  return path.join(root, 'dist-apps', `${app}.mjs`);
}

function newestSource(full: string): number {
  if (!existsSync(full)) return 0;
  const stat = statSync(full);
  if (!stat.isDirectory()) return full.endsWith('.test.ts') ? 0 : stat.mtimeMs;
  let newest = 0;
  for (const child of readdirSync(full)) newest = Math.max(newest, newestSource(path.join(full, child)));
  return newest;
}

/** Builds the bundles when a source is newer; afterwards launches use them. Never throws: tsx stays. */
export async function prepareAppBundles(root: string, warn: (message: string) => void): Promise<void> {
  try {
    // This file too: what the bundles leave out (EXTERNAL) is part of them.
    const sources = SOURCES.map((dir) => newestSource(path.join(root, dir)));
    const newest = Math.max(statSync(import.meta.filename).mtimeMs, ...sources);
    for (const app of Object.keys(ENTRIES) as AppName[]) {
      const out = bundlePath(root, app);
      if (existsSync(out) && statSync(out).mtimeMs >= newest) continue;
      // Written beside and renamed: a service starting at the same moment never runs half a file.
      const temporary = `${out}.${process.pid}.tmp`;
      // Loaded only to build: the applications and Slurm jobs that import this file to find their bundles
      // would otherwise load esbuild at every start (about 25 ms).
      const { build } = await import('esbuild');
      await build({
        entryPoints: [path.join(root, ENTRIES[app])],
        outfile: temporary,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        external: EXTERNAL,
        logLevel: 'silent',
      });
      renameSync(temporary, out);
    }
    bundled = Object.fromEntries(
      (Object.keys(ENTRIES) as AppName[]).map((app) => [app, bundlePath(root, app)]),
    ) as Record<AppName, string>;
  } catch (error) {
    warn(
      `Applications run from their sources (tsx): the bundles could not be built: ${(error as Error).message}`,
    );
  }
}

/** The bundles this process prepared (for a Slurm job to use too), or null while sources run through tsx. */
export function appBundles(): Record<AppName, string> | null {
  return bundled;
}

/** Takes bundles another process prepared (a Slurm job, from its service): launches use them from now on. */
export function adoptAppBundles(paths: Record<AppName, string>): void {
  bundled = paths;
}

/** Node's arguments that start `app`: its bundle once prepared, else its TypeScript through tsx. */
export function appEntry(app: AppName): string[] {
  // By full paths: applications may run in another working directory (the tests' stand-in folder).
  return bundled ? [bundled[app]] : ['--import', TSX, path.join(ROOT, ENTRIES[app])];
}
