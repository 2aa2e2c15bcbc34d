import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CatalogError, loadCatalog, parseCatalog } from './load-catalog.ts';
import { DEFAULT_SETTINGS } from './model.ts';
import { filterApps, findApp, latestVersion, profilesFor, splitTags, warmTargets } from './queries.ts';

const base = `applications:
  - id: viewer
    name: Viewer
    description: A viewer.
    tags: [a, b]
    versions:
      - version: 1.9.0
        description: Nine.
      - version: 1.10.0
        description: Ten.
      - version: 2.0.0-beta.11
      - version: 2.0.0-rc.1
      - version: 1.0.0+build.5
  - id: early
    name: Early
    description: Only previews.
    tags: [b]
    versions:
      - version: 0.1.0-alpha.2
      - version: 0.1.0-alpha.10
      - version: 0.1.0-alpha.9
profiles:
  - id: default
    name: Default
    description: Everything.
    applications:
      - id: "*"
        versions: ["*"]
  - id: ten
    name: Ten only
    description: Just 1.10.0 of viewer.
    applications:
      - id: viewer
        versions: [1.10.0]
    settings: {width: 640, height: 360, startup_timeout_s: 5}
`;

function errorOf(text: string): string {
  try {
    parseCatalog(text, 'cat.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(CatalogError);
    return (error as Error).message;
  }
  throw new Error('the catalog was accepted');
}

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

  it('reads a display program, and refuses a launch that is both a command and a display', () => {
    const display = base.replace(
      '        description: Nine.',
      '        description: Nine.\n        launch: {display: {command: [xterm, -fs, "12"], env: {LANG: C.UTF-8}}}',
    );
    const version = findApp(parseCatalog(display, 'cat.yaml'), 'viewer')?.versions.find(
      (v) => v.version === '1.9.0',
    );
    expect(version?.launch).toEqual({
      display: { command: ['xterm', '-fs', '12'], env: { LANG: 'C.UTF-8' } },
    });
    const both = base.replace(
      '        description: Nine.',
      '        description: Nine.\n        launch: {command: [a], display: {command: [xterm]}}',
    );
    expect(errorOf(both)).toMatch(
      /^cat\.yaml:9: a launch has either "command" \(and "env", "files"\) or "display"/,
    );
    const empty = base.replace(
      '        description: Nine.',
      '        description: Nine.\n        launch: {display: {command: []}}',
    );
    expect(errorOf(empty)).toMatch(/"command" must name a program/);
  });

  it("reads a program's files beside the catalog, and its network, and refuses files outside the catalog's folder", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'streamgate-catalog-'));
    await mkdir(path.join(folder, 'models'));
    const withFiles = (files: string, network = '') =>
      base.replace(
        '        description: Nine.',
        `        description: Nine.\n        launch: {display: {command: [f3d, models/x.obj], files: ${files}${network}}}`,
      );
    const file = path.join(folder, 'cat.yaml');
    await writeFile(file, withFiles('[models/]', ', network: true'));
    const launch = findApp(await loadCatalog(file), 'viewer')?.versions.find(
      (v) => v.version === '1.9.0',
    )?.launch;
    expect(launch).toEqual({
      display: {
        command: ['f3d', 'models/x.obj'],
        files: { root: folder, names: ['models'] },
        network: true,
      },
    });
    await writeFile(file, withFiles('[textures]'));
    await expect(loadCatalog(file)).rejects.toThrow(/"textures" does not exist beside the catalog/);
    // An icon file is looked for beside the catalog too, and missing one is said at start.
    await writeFile(
      file,
      withFiles('[models]').replace('    tags: [a, b]', '    icon: icons/viewer.svg\n    tags: [a, b]'),
    );
    await expect(loadCatalog(file)).rejects.toThrow(
      /cat\.yaml:\d+: icon file "icons\/viewer\.svg" is not beside the catalog \(.*icons\/viewer\.svg\): copy it there/,
    );
    await mkdir(path.join(folder, 'icons'));
    await writeFile(path.join(folder, 'icons', 'viewer.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    await expect(loadCatalog(file)).resolves.toBeDefined();
    await writeFile(file, withFiles('[textures]'));
    await expect(loadCatalog(file)).rejects.toThrow(/"textures" does not exist beside the catalog/);
    for (const outside of ['[../etc]', '[/etc]', '[models/../../x]', '[""]']) {
      expect(errorOf(withFiles(outside))).toMatch(/each file must be a path inside the catalog's folder/);
    }
    expect(errorOf(withFiles('[models]', ', network: yes'))).toMatch(/"network" must be true or false/);
    expect(errorOf(withFiles('[models]', ', opengl: 0'))).toMatch(/"opengl" must be true or false/);
    await rm(folder, { recursive: true });
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

  it("reads a version's declared arguments, and refuses any that is incomplete or of the wrong type", () => {
    const declare = (args: string, command = 'f3d') =>
      base.replace(
        '        description: Nine.',
        `        description: Nine.\n        launch: {display: {command: [${command}]}}\n        arguments: ${args}`,
      );
    const model =
      '[{name: model, label: Model, type: choice, choices: [a.obj, b.obj], default: a.obj, description: The model.}, ' +
      '{name: scale, type: number, default: 2}, {name: grid, label: Grid, type: boolean, required: true}]';
    const nine = findApp(
      parseCatalog(declare(model, "f3d, 'models/{arg:model=a.obj}'"), 'cat.yaml'),
      'viewer',
    )?.versions.find((v) => v.version === '1.9.0');
    expect(nine?.arguments).toEqual([
      {
        name: 'model',
        label: 'Model',
        type: 'choice',
        choices: ['a.obj', 'b.obj'],
        default: 'a.obj',
        description: 'The model.',
        required: false,
      },
      { name: 'scale', label: 'scale', type: 'number', default: 2, required: false },
      { name: 'grid', label: 'Grid', type: 'boolean', required: true },
    ]);
    // Declared as none, and not declared at all, are two things.
    expect(findApp(parseCatalog(declare('[]'), 'cat.yaml'), 'viewer')?.versions[3]?.arguments).toEqual([]);
    expect(viewer.versions.every((v) => v.arguments === undefined)).toBe(true);

    const refusals: [string, RegExp][] = [
      ['{name: x}', /^cat\.yaml:10: expected a list \(applications\.0\.versions\.0\.arguments\)/],
      ['[{label: X, type: string}]', /^cat\.yaml:10: missing required key "name"/],
      ['[{name: 2d, type: string}]', /^cat\.yaml:10: "2d" is not a valid argument name/],
      ['[{name: a-b, type: string}]', /"a-b" is not a valid argument name/],
      ['[{name: a, type: text}]', /^cat\.yaml:10: "type" must be one of string, number, boolean, choice/],
      ['[{name: a, type: choice}]', /an argument of type choice needs "choices"/],
      ['[{name: a, type: choice, choices: []}]', /"choices" must name at least one value/],
      ['[{name: a, type: string, choices: [x]}]', /"choices" belong to an argument of type choice/],
      ['[{name: a, type: choice, choices: [x], default: y}]', /"default" does not fit the type choice/],
      ['[{name: a, type: number, default: "2"}]', /"default" does not fit the type number/],
      ['[{name: a, type: boolean, default: 1}]', /"default" does not fit the type boolean/],
      ['[{name: a, type: string, required: yes please}]', /"required" must be true or false/],
      ['[{name: a, type: string, hint: x}]', /unknown key "hint"/],
      ['[{name: a, type: string}, {name: a, type: number}]', /argument "a" is declared twice/],
    ];
    for (const [args, message] of refusals) expect(errorOf(declare(args))).toMatch(message);
    // A template may only name what the version declares, once it declares anything.
    expect(errorOf(declare('[]', "f3d, 'models/{arg:model=a.obj}'"))).toMatch(
      /^cat\.yaml:9: argument "model" is not declared in this version's arguments \(declared: none\)/,
    );
    expect(errorOf(declare('[{name: size, type: number}]', "f3d, '{arg:model=a.obj}'"))).toMatch(
      /argument "model" is not declared in this version's arguments \(declared: size\)/,
    );
  });

  it('refuses two versions of equal precedence', () => {
    expect(errorOf(base.replace('1.0.0+build.5', '1.9.0+build.5'))).toMatch(/same precedence/);
  });

  it('loads the repository catalog', async () => {
    const repo = await loadCatalog(path.resolve(import.meta.dirname, '../../catalog.yaml'));
    expect(repo.apps.length).toBeGreaterThanOrEqual(4);
    const declared = (id: string) => findApp(repo, id)?.versions.map((v) => v.arguments?.map((a) => a.name));
    expect(declared('model-viewer')).toEqual([['model']]);
    expect(declared('terminal')).toEqual([[]]);
    expect(declared('gears')).toEqual([[]]);
    expect(declared('usd-viewer')).toEqual(Array(5).fill(['usd_stage_uri']));
    expect(declared('usd-composer')).toEqual(Array(3).fill(['usd_stage_uri']));
    await expect(loadCatalog('missing-catalog.yaml')).rejects.toThrow(/cannot read the catalog/);
  });
});
