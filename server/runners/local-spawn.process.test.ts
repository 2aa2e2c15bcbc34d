import { pathToFileURL } from 'node:url';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  freeBlock,
  removeDir,
  standInCommand,
  standInRequest,
  tempDataDir,
  waitFor,
} from '../../test-support/session-support.ts';
import { standInDir } from '../../test-support/stand-in-bundle.ts';
import { buildCommand, sessionEnvironment } from './local-command.ts';
import { parseLaunch } from '../../protocol/launch.ts';
import { logPath } from './local-logs.ts';
import { launchApplication, repoRoot } from './local-spawn.ts';
import { isAlive, isSessionProcess, signalGroup, startTicks, stopGroup } from './process-group.ts';

// This file's ports: 28120-28139 (fixed ones for the command lines; a free pair for a real start).
const ports = { signaling: 28120, media: 28121 };
const sessionId = '0b7c9a52-7f5e-4c1e-9d2a-3f4e5a6b7c8d';

let dir: string | undefined;
const started: number[] = [];
afterEach(async () => {
  for (const pid of started.splice(0)) if (isAlive(pid)) signalGroup(pid, 'SIGKILL');
  if (dir) await removeDir(dir);
  dir = undefined;
});

/** How an application runs from its sources: tsx's loader by its address. */
const TSX_IMPORT = ['--import', pathToFileURL(path.join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href];

describe('buildCommand', () => {
  it('replaces the placeholders of a LaunchSpec and passes the session in the environment', () => {
    const base = standInRequest(['--extra', 'x{host}y']);
    const request = {
      ...base,
      launch: {
        command: standInCommand(['--extra', 'x{host}y']),
        env: { MY_VAR: '1', STREAMGATE_HOST: 'overridden?' },
      },
    };
    const command = buildCommand({ sessionId, request, ports, host: '10.0.0.5' });
    expect(command.file).toBe(process.execPath);
    expect(command.args).toContain(sessionId);
    expect(command.args.slice(-8)).toEqual([
      '--signaling-port',
      '28120',
      '--media-port',
      '28121',
      '--host',
      '10.0.0.5',
      '--extra',
      'x10.0.0.5y',
    ]);
    expect(command.env).toEqual({
      MY_VAR: '1',
      STREAMGATE_SESSION_ID: sessionId,
      STREAMGATE_SIGNALING_PORT: '28120',
      STREAMGATE_MEDIA_PORT: '28121',
      STREAMGATE_HOST: '10.0.0.5',
      STREAMGATE_ARGUMENTS: JSON.stringify({ usd_stage_uri: 'omniverse://example/stage.usd' }),
    });
    // Of the service's own environment, a session's process gets the allowed variables only.
    expect(
      sessionEnvironment(command.env, { PATH: '/usr/bin', STREAMGATE_TOKENS_FILE: '/srv/t', SECRET: 'x' }),
    ).toEqual({ ...command.env, PATH: '/usr/bin' });
  });

  it('runs a display program through the display host, with only safe words from the arguments', () => {
    const program = ['f3d', 'models/{arg:model=knot.obj}', '--title={session_id}'];
    const request = {
      ...standInRequest(),
      launch: { display: { command: program, env: { LANG: 'C.UTF-8' } } },
      arguments: { model: 'cube.obj' },
    };
    const { file, args, env } = buildCommand({ sessionId, request, ports, host: '127.0.0.1' });
    expect(file).toBe(process.execPath);
    // Its launch is in its environment only (protocol/launch.ts), where the display host reads it back.
    expect(args).toEqual([...TSX_IMPORT, path.join(repoRoot, 'streamer/display/main.ts')]);
    const launch = parseLaunch([], env);
    expect(launch).toMatchObject({ sessionId, signalingPort: 28120, mediaPort: 28121, maxWidth: 1280 });
    expect(launch.display?.command).toEqual(['f3d', 'models/cube.obj', `--title=${sessionId}`]);
    expect(launch.display?.env).toEqual({ LANG: 'C.UTF-8' });
    expect(env.LANG).toBeUndefined();
    for (const unsafe of ['../../etc/passwd', '--output=/tmp/x', '.hidden', 'a b', 7]) {
      const hostile = { ...request, arguments: { model: unsafe } };
      const built = buildCommand({ sessionId, request: hostile, ports, host: '127.0.0.1' });
      expect(parseLaunch([], built.env).display?.command).toContain('models/knot.obj');
    }
  });

  it('runs the sample streaming application with the profile settings when there is no LaunchSpec', () => {
    const request = { ...standInRequest(), launch: undefined };
    const { file, args, env } = buildCommand({ sessionId, request, ports, host: '127.0.0.1' });
    expect(file).toBe(process.execPath);
    // It opens no TLS connection: Node would read these certificates at its start for nothing.
    expect(sessionEnvironment(env, { NODE_EXTRA_CA_CERTS: '/etc/ca.pem' })).not.toHaveProperty(
      'NODE_EXTRA_CA_CERTS',
    );
    expect(args).toEqual([...TSX_IMPORT, path.join(repoRoot, 'streamer/sample/main.ts')]);
    expect(parseLaunch([], env)).toMatchObject({
      sessionId,
      signalingPort: 28120,
      mediaPort: 28121,
      host: '127.0.0.1',
      appName: 'USD Viewer',
      appVersion: '1.2.0',
      profile: 'default',
      width: 640,
      height: 360,
      fps: 30,
      maxWidth: 1280,
      maxHeight: 720,
      usdStageUri: 'omniverse://example/stage.usd',
      display: null,
    });
    const withoutStage = buildCommand({
      sessionId,
      request: { ...request, arguments: {} },
      ports,
      host: 'h',
    });
    expect(parseLaunch([], withoutStage.env).usdStageUri).toBe('');
  });
});

describe('launchApplication', () => {
  it('starts the application in its own process group, with its output in the session log', async () => {
    dir = await tempDataDir();
    const logDir = path.join(dir, 'logs');
    const first = await freeBlock(28122, 28139, 2);
    const child = await launchApplication(
      {
        sessionId,
        request: standInRequest(),
        ports: { signaling: first, media: first + 1 },
        host: '127.0.0.1',
      },
      { logDir, cwd: standInDir() },
    );
    const pid = child.pid!;
    started.push(pid);
    expect(isSessionProcess(pid, sessionId, startTicks(pid))).toBe(true);
    expect(isSessionProcess(pid, 'another-session')).toBe(false);
    expect(isSessionProcess(pid, sessionId, '1')).toBe(false);
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Field 5, the process group, is the child itself.
    expect(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]).toBe(String(pid));
    await waitFor('the stand-in to log', async () =>
      (await readFile(logPath(logDir, sessionId), 'utf8').catch(() => '')).includes(`stand-in ${sessionId}`),
    );
    await stopGroup(pid, 2_000);
    expect(isAlive(pid)).toBe(false);
  });

  it('starts the sample application without what it does not need of the environment', async () => {
    dir = await tempDataDir();
    const first = await freeBlock(28122, 28139, 2);
    const saved = process.env.NODE_EXTRA_CA_CERTS;
    process.env.NODE_EXTRA_CA_CERTS = '/nonexistent/extra-ca.pem';
    let child;
    try {
      child = await launchApplication(
        {
          sessionId,
          request: { ...standInRequest(), launch: undefined },
          ports: { signaling: first, media: first + 1 },
          host: '127.0.0.1',
        },
        { logDir: path.join(dir, 'logs') },
      );
    } finally {
      if (saved === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
      else process.env.NODE_EXTRA_CA_CERTS = saved;
    }
    const pid = child.pid!;
    started.push(pid);
    // Read at once: the environment the program was started with.
    const environment = (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0');
    await stopGroup(pid, 2_000);
    expect(environment).toContain(`STREAMGATE_SESSION_ID=${sessionId}`);
    expect(environment.some((entry) => entry.startsWith('NODE_EXTRA_CA_CERTS='))).toBe(false);
  });

  it('rejects when the command cannot be started', async () => {
    dir = await tempDataDir();
    const request = standInRequest();
    request.launch = { command: ['streamgate-no-such-program'] };
    await expect(
      launchApplication({ sessionId, request, ports, host: '127.0.0.1' }, { logDir: dir }),
    ).rejects.toThrow(/ENOENT/);
  });
});
