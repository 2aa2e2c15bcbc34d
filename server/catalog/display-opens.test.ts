/**
 * What a display program opens of a person's files (catalog `opens`, `open_command`): read and refused with the
 * catalog's sentences, listed with the versions, and given to the display host in its environment; and the size
 * of a session's folder (`settings.files_mb`).
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { base, errorOf } from '../../test-support/catalog-support.ts';
import { testSettings } from '../../test-support/session-support.ts';
import { DEFAULT_FILES_MB, MAX_FILES_MB } from '../../protocol/files.ts';
import { errorHandler } from '../http/error-handler.ts';
import { cfgRoutes } from '../routes/cfg.ts';
import { buildCommand } from '../runners/local-command.ts';
import { parseCatalog } from './load-catalog.ts';
import type { LaunchSpec } from './model.ts';
import { findApp } from './queries.ts';

/** The catalog with version 1.9.0 of `viewer` launched as `display` says. */
const withDisplay = (display: string) =>
  base.replace(
    '        description: Nine.',
    `        description: Nine.\n        launch: {display: {${display}}}`,
  );

const launchOf = (catalog: string): LaunchSpec | undefined =>
  findApp(parseCatalog(catalog, 'cat.yaml'), 'viewer')?.versions.find((v) => v.version === '1.9.0')?.launch;

describe('opens and open_command in the catalog', () => {
  it('reads the extensions a program opens and the command that opens one', () => {
    expect(launchOf(withDisplay('command: [f3d, models/x.obj], opens: [obj, stl]'))).toEqual({
      display: { command: ['f3d', 'models/x.obj'], opens: ['obj', 'stl'] },
    });
    expect(
      launchOf(
        withDisplay("command: [f3d, models/x.obj], opens: [stl], open_command: [f3d, '--input={file}', -x]"),
      ),
    ).toEqual({
      display: {
        command: ['f3d', 'models/x.obj'],
        opens: ['stl'],
        openCommand: ['f3d', '--input={file}', '-x'],
      },
    });
  });

  it('refuses extensions that are not lower case words without a dot, too many, or twice, saying where', () => {
    const refusals: [string, RegExp][] = [
      [
        'opens: stl',
        /^cat\.yaml:9: expected a list \(applications\.0\.versions\.0\.launch\.display\.opens\)/,
      ],
      ['opens: []', /"opens" must name at least one extension, such as stl/],
      [
        'opens: [.stl]',
        /^cat\.yaml:9: each extension must be 1 to 16 lower case letters or digits, without the dot, such as stl; write "stl" \(applications\.0\.versions\.0\.launch\.display\.opens\.0\)/,
      ],
      ['opens: [obj, STL]', /without the dot, such as stl; write "stl" \(.*display\.opens\.1\)/],
      ['opens: [tar.gz]', /each extension must be 1 to 16 lower case letters or digits/],
      ['opens: [3]', /each extension must be 1 to 16/],
      [`opens: [${'a'.repeat(17)}]`, /each extension must be 1 to 16/],
      ['opens: [obj, stl, obj]', /"obj" is named twice \(.*display\.opens\.2\)/],
      [
        `opens: [${Array.from({ length: 33 }, (_, i) => `e${i}`).join(', ')}]`,
        /"opens" may name at most 32 extensions/,
      ],
    ];
    for (const [opens, message] of refusals)
      expect(errorOf(withDisplay(`command: [f3d], ${opens}`))).toMatch(message);
    // Thirty-two is allowed.
    const most = Array.from({ length: 32 }, (_, i) => `e${i}`);
    expect(launchOf(withDisplay(`command: [f3d], opens: [${most.join(', ')}]`))).toMatchObject({
      display: { opens: most },
    });
  });

  it('refuses an open_command without {file} in exactly one argument, as the program, or without opens', () => {
    const refusals: [string, RegExp][] = [
      [
        'opens: [stl], open_command: [f3d]',
        /^cat\.yaml:9: "open_command" must hold \{file\} in exactly one argument, where the person's file goes \(.*display\.open_command\)/,
      ],
      [
        'opens: [stl], open_command: [f3d, "{file}", "{file}.bak"]',
        /in exactly one argument, .* \(it is in 2\)/,
      ],
      [
        'opens: [stl], open_command: ["{file}"]',
        /\{file\} cannot be the program: a person's file is opened, never run/,
      ],
      ['opens: [stl], open_command: []', /"open_command" must name a program/],
      ['opens: [stl], open_command: [f3d, 2]', /each command element must be text \(.*open_command\.1\)/],
      ['open_command: [f3d, "{file}"]', /"open_command" needs "opens": the extensions of the files it opens/],
    ];
    for (const [keys, message] of refusals)
      expect(errorOf(withDisplay(`command: [f3d], ${keys}`))).toMatch(message);
    // Only display programs open people's files.
    const command = base.replace(
      '        description: Nine.',
      '        description: Nine.\n        launch: {command: [app], opens: [stl]}',
    );
    expect(errorOf(command)).toMatch(/unknown key "opens"/);
  });

  it('holds an open_command to the declared arguments, as the command', () => {
    const declared = withDisplay(
      "command: [f3d], opens: [stl], open_command: [f3d, '{arg:scale=1}', '{file}']",
    ).replace('        description: Nine.', '        description: Nine.\n        arguments: []');
    expect(errorOf(declared)).toMatch(
      /argument "scale" is not declared in this version's arguments \(declared: none\)/,
    );
  });
});

describe('opens in the versions API', () => {
  it('lists the extensions of each version that opens some, and nothing for the others', async () => {
    const catalog = parseCatalog(withDisplay('command: [f3d], opens: [stl, obj]'), 'cat.yaml');
    const app = Fastify();
    app.setErrorHandler(errorHandler);
    await app.register(cfgRoutes, { prefix: '/api', catalog });
    try {
      const list = (await app.inject('/api/cfg/apps/viewer/versions')).json() as {
        items: { version: string; opens?: string[] }[];
      };
      expect(list.items.find((v) => v.version === '1.9.0')?.opens).toEqual(['stl', 'obj']);
      expect(list.items.filter((v) => v.opens !== undefined)).toHaveLength(1);
      expect((await app.inject('/api/cfg/apps/viewer/versions/1.9.0')).json()).toEqual({
        version: '1.9.0',
        description: 'Nine.',
        opens: ['stl', 'obj'],
      });
      expect((await app.inject('/api/cfg/apps/viewer/versions/1.10.0')).json()).toEqual({
        version: '1.10.0',
        description: 'Ten.',
      });
    } finally {
      await app.close();
    }
  });
});

describe("the display host's environment", () => {
  const envOf = (launch: LaunchSpec, environment: Record<string, string> = {}) =>
    buildCommand({
      sessionId: '0b6f6c0e-3d7a-4c1e-9a8e-2f4f5d6c7b8a',
      request: {
        owner: 'alice',
        arguments: { scale: '2' },
        app: { id: 'viewer', name: 'Viewer' },
        version: '1.9.0',
        profile: { id: 'default', name: 'Default', settings: testSettings },
        launch,
      },
      ports: { signaling: 47000, media: 47001 },
      host: '127.0.0.1',
      environment,
    }).env;

  it('names what the program opens and the command that opens a file, templates filled in', () => {
    const given = envOf({
      display: {
        command: ['f3d', 'models/x.obj'],
        opens: ['stl', 'obj'],
        openCommand: ['f3d', '--scale={arg:scale=1}', '--port={signaling_port}', '{file}'],
      },
    });
    expect(given.STREAMGATE_OPENS).toBe('stl,obj');
    expect(JSON.parse(given.STREAMGATE_OPEN_COMMAND ?? '')).toEqual([
      'f3d',
      '--scale=2',
      '--port=47000',
      '{file}',
    ]);
    // Without one, the program's own command with the file after it.
    const appended = envOf({ display: { command: ['mpv', '--loop', '{session_id}'], opens: ['mp4'] } });
    expect(JSON.parse(appended.STREAMGATE_OPEN_COMMAND ?? '')).toEqual([
      'mpv',
      '--loop',
      '0b6f6c0e-3d7a-4c1e-9a8e-2f4f5d6c7b8a',
      '{file}',
    ]);
    // A program that opens nothing is told nothing of it.
    const none = envOf({ display: { command: ['xterm'] } });
    expect(none.STREAMGATE_OPENS).toBeUndefined();
    expect(none.STREAMGATE_OPEN_COMMAND).toBeUndefined();
  });
});

describe('settings.files_mb', () => {
  const profile = (settings: string) =>
    base.replace('    description: Everything.', `    description: Everything.\n    settings: {${settings}}`);

  it('sizes a session’s folder, by default and as asked, within its bounds', () => {
    const sizeOf = (catalog: string) =>
      parseCatalog(catalog, 'cat.yaml').profiles.find((p) => p.id === 'default');
    expect(sizeOf(base)?.settings.filesMb).toBe(DEFAULT_FILES_MB);
    expect(sizeOf(profile('files_mb: 2048'))?.settings.filesMb).toBe(2048);
    expect(sizeOf(profile(`files_mb: ${MAX_FILES_MB}`))?.settings.filesMb).toBe(MAX_FILES_MB);
    for (const bad of ['0', String(MAX_FILES_MB + 1), '1.5', '"512"']) {
      expect(errorOf(profile(`files_mb: ${bad}`))).toMatch(
        new RegExp(
          `"files_mb" must be a whole number from 1 to ${MAX_FILES_MB} \\(profiles\\.0\\.settings\\.files_mb\\)`,
        ),
      );
    }
  });
});
