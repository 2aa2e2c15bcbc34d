/**
 * The sample application and the display host, bundled once (esbuild) so that each session starts plain
 * JavaScript instead of compiling TypeScript through tsx at every launch: about half the time from spawn
 * to ready. The service builds the bundles at start when their sources are newer; until then (or in
 * tests that never start the service) applications run from their sources through tsx.
 */
import { existsSync, readdirSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export type AppName = 'streamer' | 'display';

const ENTRIES: Record<AppName, string> = {
  streamer: 'streamer/sample/main.ts',
  display: 'streamer/display/main.ts',
};
/** Native or CommonJS packages stay in node_modules, loaded as they are. */
const EXTERNAL = ['node-datachannel', '@napi-rs/canvas', 'x11', 'opusscript'];
const SOURCES = ['streamer', 'protocol', 'sandbox'];
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
    bundled = { streamer: bundlePath(root, 'streamer'), display: bundlePath(root, 'display') };
  } catch (error) {
    warn(
      `Applications run from their sources (tsx): the bundles could not be built: ${(error as Error).message}`,
    );
  }
}

/** Node's arguments that start `app`: its bundle once prepared, else its TypeScript through tsx. */
export function appEntry(app: AppName): string[] {
  // By full paths: applications may run in another working directory (the tests' stand-in folder).
  return bundled ? [bundled[app]] : ['--import', TSX, path.join(ROOT, ENTRIES[app])];
}

/** The command that runs one of the service's own TypeScript files through tsx, from any working directory. */
export function tsxCommand(file: string): string[] {
  return [process.execPath, '--import', TSX, file];
}
