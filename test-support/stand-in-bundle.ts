/**
 * The stand-in application (stand-in.ts) as one JavaScript file, so that it starts without tsx and runs where
 * only the files a catalog names are visible: in a session's sandbox, `files: [stand-in.mjs]` beside the catalog.
 */
import { copyFileSync, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';

/** The stand-in's file name, beside a catalog and in the working directory of the tests' applications. */
export const STAND_IN_FILE = 'stand-in.mjs';

const SOURCE = path.join(import.meta.dirname, 'stand-in.ts');

/** The folder holding the stand-in, built when its source is newer (once per source change, shared by test runs). */
export function standInDir(): string {
  const dir = path.join(tmpdir(), `streamgate-stand-in-${Math.floor(statSync(SOURCE).mtimeMs)}`);
  const file = path.join(dir, STAND_IN_FILE);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    // Written beside and renamed, so that a test worker starting meanwhile never runs half a file.
    const temporary = `${file}.${process.pid}.mjs`;
    buildSync({
      entryPoints: [SOURCE],
      outfile: temporary,
      bundle: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
    });
    renameSync(temporary, file);
  }
  return dir;
}

/** Puts the stand-in in `dir`, beside a catalog that a service reads from there. */
export function copyStandInTo(dir: string): void {
  copyFileSync(path.join(standInDir(), STAND_IN_FILE), path.join(dir, STAND_IN_FILE));
}
