/** A version's launch in the catalog: a display program, its files beside the catalog, and its declared arguments. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { base, errorOf } from '../../test-support/catalog-support.ts';
import { loadCatalog, parseCatalog } from './load-catalog.ts';
import { findApp } from './queries.ts';

describe('parseCatalog', () => {
  const catalog = parseCatalog(base, 'cat.yaml');
  const viewer = findApp(catalog, 'viewer')!;

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
});
