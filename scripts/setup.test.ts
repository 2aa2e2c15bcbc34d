/**
 * `npm run setup` on a fresh clone: it installs exactly the lock (npm ci, so the clone stays clean), every locked
 * package runs on the Node the project names (no EBADENGINE warning), and every package with an install script is
 * approved or denied in package.json's allowScripts (no warning that one is not covered).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

interface LockedPackage {
  version?: string;
  engines?: { node?: string };
  hasInstallScript?: boolean;
  optional?: boolean;
}

const pkg = JSON.parse(read('package.json')) as {
  engines: { node: string };
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, LockedPackage> };
/** The name of a lock entry: the last `node_modules/` part of its path. */
const nameOf = (where: string) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);

describe('npm run setup', () => {
  it('installs the lock as it is, with npm ci', () => {
    expect(read('scripts/setup.sh')).toMatch(/^npm ci\b/m);
    expect(read('scripts/setup.sh')).not.toMatch(/^npm install\b/m);
  });

  it('locks only packages that run on the oldest Node the project names', () => {
    const oldest = semver.minVersion(pkg.engines.node)?.version ?? '';
    const unsupported = Object.entries(lock.packages)
      .filter(([where, entry]) => where !== '' && !entry.optional && entry.engines?.node)
      .filter(([, entry]) => !semver.satisfies(oldest, entry.engines?.node ?? '*'))
      .map(([where, entry]) => `${nameOf(where)}@${entry.version} needs Node ${entry.engines?.node}`);
    expect(unsupported).toEqual([]);
  });

  it('approves or denies every install script of the lock', () => {
    const scripted = Object.entries(lock.packages)
      .filter(([where, entry]) => where !== '' && entry.hasInstallScript)
      .map(([where]) => nameOf(where));
    expect(scripted.length).toBeGreaterThan(0);
    expect(scripted.filter((name) => pkg.allowScripts?.[name] === undefined)).toEqual([]);
  });
});
