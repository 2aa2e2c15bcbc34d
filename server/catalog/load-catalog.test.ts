/** The catalog: versions in SemVer order, applications and tags, profiles and their settings, and what it refuses. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { base, errorOf } from '../../test-support/catalog-support.ts';
import { loadCatalog, parseCatalog } from './load-catalog.ts';
import { DEFAULT_SETTINGS } from './model.ts';
import { filterApps, findApp, latestVersion, profilesFor, splitTags, warmTargets } from './queries.ts';

describe('parseCatalog', () => {
  const catalog = parseCatalog(base, 'cat.yaml');
  const viewer = findApp(catalog, 'viewer')!;

  it('orders versions by SemVer precedence, newest first, keeping build metadata in the text', () => {
    expect(viewer.versions.map((v) => v.version)).toEqual([
      '2.0.0-rc.1',
      '2.0.0-beta.11',
      '1.10.0',
      '1.9.0',
      '1.0.0+build.5',
    ]);
  });

  it('picks the highest release as latest, and the highest pre-release when there is no release', () => {
    expect(latestVersion(viewer)?.version).toBe('1.10.0');
    expect(latestVersion(findApp(catalog, 'early')!)?.version).toBe('0.1.0-alpha.10');
  });

  it('orders applications by name then id and filters on every tag', () => {
    expect(catalog.apps.map((a) => a.id)).toEqual(['early', 'viewer']);
    expect(filterApps(catalog, splitTags(['b'])).map((a) => a.id)).toEqual(['early', 'viewer']);
    expect(filterApps(catalog, splitTags(['a,b'])).map((a) => a.id)).toEqual(['viewer']);
    expect(filterApps(catalog, splitTags(['b', 'c'])).map((a) => a.id)).toEqual([]);
  });

  it('maps settings with defaults for the keys left out', () => {
    const ten = catalog.profiles.find((p) => p.id === 'ten')!;
    expect(ten.settings).toEqual({ ...DEFAULT_SETTINGS, width: 640, height: 360, startupTimeoutMs: 5000 });
  });

  it('resolves profile wildcards both in attachments and in the request', () => {
    const ids = (a: string, v: string) => {
      const scope = profilesFor(catalog, a, v);
      return scope.ok ? scope.profiles.map((p) => p.id) : scope.missing;
    };
    expect(ids('viewer', '1.10.0')).toEqual(['default', 'ten']);
    expect(ids('viewer', '1.9.0')).toEqual(['default']);
    expect(ids('*', '*')).toEqual(['default', 'ten']);
    expect(ids('*', '1.10.0')).toEqual(['default', 'ten']);
    expect(ids('early', '*')).toEqual(['default']);
    expect(ids('viewer', '*')).toEqual(['default', 'ten']);
    expect(ids('nope', '*')).toBe('application');
    expect(ids('viewer', '3.0.0')).toBe('version');
  });

  it('reports a YAML syntax error with its line', () => {
    expect(errorOf('applications:\n  - id: [unclosed\nprofiles: []\n')).toMatch(
      /^cat\.yaml:\d+: not valid YAML/,
    );
  });

  it('reports duplicate application ids at the line of the second one', () => {
    const text = `applications:
  - id: x
    name: X
    versions: [{version: 1.0.0}]
  - id: x
    name: Y
    versions: [{version: 1.0.0}]
profiles: []
`;
    expect(errorOf(text)).toBe('cat.yaml:5: duplicate application id "x" (applications.1.id)');
  });

  it('names the line and the problem of a bad version, id, key or attachment', () => {
    expect(errorOf(base.replace('1.9.0', 'v1.9.0'))).toMatch(/^cat\.yaml:7: "v1\.9\.0" is not SemVer/);
    expect(errorOf(base.replace('1.9.0', '1.9'))).toMatch(/^cat\.yaml:7: write the version as text/);
    expect(errorOf(base.replace('id: early', 'id: "bad id"'))).toMatch(
      /^cat\.yaml:14: "bad id" is not a valid id/,
    );
    expect(errorOf(base.replace('tags: [b]', 'tagz: [b]'))).toMatch(/^cat\.yaml:17: unknown key "tagz"/);
    expect(errorOf(base.replace('versions: [1.10.0]', 'versions: [1.11.0]'))).toMatch(
      /^cat\.yaml:\d+: application "viewer" has no version "1\.11\.0"/,
    );
    expect(errorOf(base.replace('width: 640', 'width: 0'))).toMatch(/"width" must be a whole number/);
    expect(errorOf('applications: []\n')).toMatch(/missing required key "profiles"/);
  });

  it("takes a profile's limits and GPUs, with the defaults of CONTRACT section 17", () => {
    const limited = parseCatalog(
      base.replace(
        'startup_timeout_s: 5}',
        'startup_timeout_s: 5, gpus: 0, limits: {cpus: 0.5, memory_mb: 512}}',
      ),
      'cat.yaml',
    );
    const settings = limited.profiles.find((p) => p.id === 'ten')?.settings;
    expect(settings?.gpus).toBe(0);
    expect(settings?.limits).toEqual({ cpus: 0.5, memoryMb: 512, pids: 512 });
    expect(DEFAULT_SETTINGS.limits).toEqual({ cpus: 1, memoryMb: 4096, pids: 512 });
    expect(
      errorOf(base.replace('startup_timeout_s: 5}', 'startup_timeout_s: 5, limits: {cpus: 0}}')),
    ).toMatch(/"cpus" must be a number of cores/);
    expect(
      errorOf(base.replace('startup_timeout_s: 5}', 'startup_timeout_s: 5, limits: {pids: 2}}')),
    ).toMatch(/"pids" must be a whole number from 8/);
  });

  it("takes a profile's video codec, vp8 or h264, and leaves it unset (VP8) where it is not said", () => {
    const h264 = parseCatalog(
      base.replace('startup_timeout_s: 5}', 'startup_timeout_s: 5, codec: h264}'),
      'cat.yaml',
    );
    expect(h264.profiles.map((p) => p.settings.codec)).toContain('h264');
    expect(catalog.profiles.every((p) => p.settings.codec === undefined)).toBe(true);
    expect(errorOf(base.replace('startup_timeout_s: 5}', 'startup_timeout_s: 5, codec: av1}'))).toMatch(
      /"codec" must be vp8 or h264/,
    );
  });

  it("takes a profile's initial lifetime up to its maximum, and leaves it unset (the maximum) where it is not said", () => {
    const short = parseCatalog(
      base.replace('startup_timeout_s: 5}', 'startup_timeout_s: 5, lifetime_min: 30, max_lifetime_min: 120}'),
      'cat.yaml',
    );
    const settings = short.profiles.find((p) => p.id === 'ten')?.settings;
    expect(settings).toMatchObject({ lifetimeMs: 30 * 60_000, maxLifetimeMs: 120 * 60_000 });
    expect(catalog.profiles.every((p) => p.settings.lifetimeMs === undefined)).toBe(true);
    expect(
      errorOf(base.replace('startup_timeout_s: 5}', 'startup_timeout_s: 5, lifetime_min: 200}')),
    ).toMatch(/"lifetime_min" must be a whole number from 1 to 180/);
  });

  it('keeps `warm` applications for every version a warm profile applies to, wildcards expanded', () => {
    const warm = parseCatalog(
      base.replace('startup_timeout_s: 5}', 'startup_timeout_s: 5, warm: 2}'),
      'cat.yaml',
    );
    expect(
      warmTargets(warm).map((t) => [t.target.app.id, t.target.version, t.target.profile.id, t.count]),
    ).toEqual([['viewer', '1.10.0', 'ten', 2]]);
    const everything = parseCatalog(
      base.replace('versions: ["*"]', 'versions: ["*"]\n    settings: {warm: 1}'),
      'cat.yaml',
    );
    // Every version of every application: early's three previews and viewer's five.
    expect(warmTargets(everything)).toHaveLength(8);
    expect(warmTargets(catalog)).toEqual([]);
    expect(errorOf(base.replace('startup_timeout_s: 5}', 'startup_timeout_s: 5, warm: -1}'))).toMatch(
      /"warm" must be a whole number/,
    );
  });

  it('refuses two versions of equal precedence', () => {
    expect(errorOf(base.replace('1.0.0+build.5', '1.9.0+build.5'))).toMatch(/same precedence/);
  });

  it('loads the repository catalog, its icons and files beside it: real programs and the Kit App Stand-in', async () => {
    const repo = await loadCatalog(path.resolve(import.meta.dirname, '../../catalog.yaml'));
    const declared = (id: string) => findApp(repo, id)?.versions.map((v) => v.arguments?.map((a) => a.name));
    expect(declared('model-viewer')).toEqual([['model']]);
    for (const id of ['terminal', 'gears', 'cad', 'web-browser', 'presentation', 'video-player']) {
      expect({ id, declared: declared(id) }).toEqual({ id, declared: [[]] });
    }
    expect(declared('kit-stand-in')).toEqual([['usd_stage_uri']]);
    // One sample application, named for what it is; every other entry a real program with an icon of its own.
    const samples = repo.apps.filter((app) => app.versions.some((v) => v.launch === undefined));
    expect(samples.map((app) => app.id)).toEqual(['kit-stand-in']);
    expect(repo.apps.filter((app) => app.id !== 'kit-stand-in' && !app.icon)).toEqual([]);
    expect(warmTargets(repo).map((t) => t.target.app.id)).toEqual(['kit-stand-in']);
  });

  it("loads the tests' catalog, whose sample entries the tests rely on", async () => {
    const file = path.resolve(import.meta.dirname, '../../test-support/catalog.yaml');
    // Its icons and models are linked beside it by the harness, not kept in test-support/.
    const tests = parseCatalog(await readFile(file, 'utf8'), file);
    expect(tests.apps.length).toBeGreaterThanOrEqual(4);
    const declared = (id: string) => findApp(tests, id)?.versions.map((v) => v.arguments?.map((a) => a.name));
    expect(declared('model-viewer')).toEqual([['model']]);
    expect(declared('terminal')).toEqual([[]]);
    expect(declared('gears')).toEqual([[]]);
    expect(declared('usd-viewer')).toEqual(Array(5).fill(['usd_stage_uri']));
    expect(declared('usd-composer')).toEqual(Array(3).fill(['usd_stage_uri']));
    await expect(loadCatalog('missing-catalog.yaml')).rejects.toThrow(/cannot read the catalog/);
  });
});
