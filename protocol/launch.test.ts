import { DEFAULT_FILES_MB, MAX_FILES_MB } from './files.ts';
import { fstatSync, openSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { secretFile } from '../test-support/secret-file.ts';
import { LaunchError, launchEnvironment, parseLaunch, type Launch } from './launch.ts';

const ports = ['--signaling-port', '49100', '--media-port', '47998'];
/** The two ports as a runner gives them. */
const portsEnv = { STREAMGATE_SIGNALING_PORT: '49100', STREAMGATE_MEDIA_PORT: '47998' };

describe('parseLaunch, by hand', () => {
  it('applies the defaults when only the ports are given', () => {
    const options = parseLaunch(ports);
    expect(options).toMatchObject({
      signalingPort: 49100,
      mediaPort: 47998,
      host: '127.0.0.1',
      width: 1280,
      height: 720,
      fps: 30,
      maxWidth: 1920,
      maxHeight: 1080,
      usdStageUri: '',
      testMarks: false,
    });
    expect(options.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reads every flag a person may give, in both spellings', () => {
    const options = parseLaunch([
      ...ports,
      '--session-id=0b7e6f2c-1f7a-4d2e-9a51-5d1c0e7a9b11',
      '--host',
      '10.0.0.5',
      '--app-name',
      'USD Viewer',
      '--app-version',
      '1.2.0',
      '--profile',
      'default',
      '--width',
      '640',
      '--height',
      '360',
      '--fps',
      '25',
      '--max-width',
      '1280',
      '--max-height',
      '720',
      '--usd-stage-uri',
      'omniverse://server/stage.usd',
      '--max-viewers',
      '3',
      '--codec',
      'h264',
      '--encoder-rest-s',
      '5',
      '--test-marks',
    ]);
    expect(options).toEqual({
      sessionId: '0b7e6f2c-1f7a-4d2e-9a51-5d1c0e7a9b11',
      signalingPort: 49100,
      mediaPort: 47998,
      host: '10.0.0.5',
      appName: 'USD Viewer',
      appVersion: '1.2.0',
      profile: 'default',
      width: 640,
      height: 360,
      fps: 25,
      codec: 'h264',
      maxWidth: 1280,
      maxHeight: 720,
      usdStageUri: 'omniverse://server/stage.usd',
      maxViewers: 3,
      filesMb: 512,
      encoderRestS: 5,
      allowedOrigins: null,
      viewerSecret: null,
      testMarks: true,
      stillPath: null,
      audio: true,
      display: null,
    });
  });

  it('streams VP8 unless --codec or STREAMGATE_CODEC says h264, the flag first', () => {
    expect(parseLaunch(ports).codec).toBe('vp8');
    expect(parseLaunch(ports, { STREAMGATE_CODEC: 'h264' }).codec).toBe('h264');
    expect(parseLaunch([...ports, '--codec=vp8'], { STREAMGATE_CODEC: 'h264' }).codec).toBe('vp8');
    expect(() => parseLaunch([...ports, '--codec', 'av1'])).toThrow(
      '--codec (or STREAMGATE_CODEC) must be vp8 or h264.',
    );
    expect(() => parseLaunch(ports, { STREAMGATE_CODEC: 'H265' })).toThrow(LaunchError);
  });

  it('streams sound unless --no-audio or STREAMGATE_AUDIO=off says not, and refuses another setting', () => {
    expect(parseLaunch(ports).audio).toBe(true);
    expect(parseLaunch(ports, { STREAMGATE_AUDIO: 'on' }).audio).toBe(true);
    expect(parseLaunch(ports, { STREAMGATE_AUDIO: 'off' }).audio).toBe(false);
    expect(parseLaunch([...ports, '--no-audio']).audio).toBe(false);
    expect(() => parseLaunch(ports, { STREAMGATE_AUDIO: 'loud' })).toThrow(
      'STREAMGATE_AUDIO must be on or off.',
    );
  });

  it('keeps a still only where the service names its file', () => {
    expect(parseLaunch(ports).stillPath).toBeNull();
    expect(parseLaunch(ports, { STREAMGATE_STILL_PATH: ' ' }).stillPath).toBeNull();
    expect(parseLaunch(ports, { STREAMGATE_STILL_PATH: '/data/stills/a.jpg' }).stillPath).toBe(
      '/data/stills/a.jpg',
    );
  });

  it('draws the test marks only when a flag or the environment asks', () => {
    expect(parseLaunch(ports).testMarks).toBe(false);
    expect(parseLaunch([...ports, '--test-marks']).testMarks).toBe(true);
    expect(parseLaunch(ports, { STREAMGATE_TEST_MARKS: '1' }).testMarks).toBe(true);
    expect(parseLaunch(ports, { STREAMGATE_TEST_MARKS: '0' }).testMarks).toBe(false);
  });

  it('keeps sizes even and within the maximum', () => {
    const options = parseLaunch([...ports, '--width', '641', '--height', '2000', '--max-height', '1081']);
    expect(options.width).toBe(640);
    expect(options.maxHeight).toBe(1080);
    expect(options.height).toBe(1080);
  });

  it('takes the stage from STREAMGATE_ARGUMENTS unless the flag names one', () => {
    const env = { STREAMGATE_ARGUMENTS: JSON.stringify({ usd_stage_uri: 'file:///a.usd', other: 1 }) };
    expect(parseLaunch(ports, env).usdStageUri).toBe('file:///a.usd');
    expect(parseLaunch([...ports, '--usd-stage-uri', 'file:///b.usd'], env).usdStageUri).toBe(
      'file:///b.usd',
    );
    expect(parseLaunch(ports, { STREAMGATE_ARGUMENTS: '{not json' }).usdStageUri).toBe('');
    expect(parseLaunch(ports, { STREAMGATE_ARGUMENTS: '["x"]' }).usdStageUri).toBe('');
  });

  it.each([
    [['--media-port', '47998'], /--signaling-port \(or STREAMGATE_SIGNALING_PORT\) is required/],
    [['--signaling-port', '49100'], /--media-port \(or STREAMGATE_MEDIA_PORT\) is required/],
    [[...ports, '--fps', 'fast'], /--fps needs a whole number/],
    [[...ports, '--width', '-5'], /--width needs a whole number/],
    [[...ports, '--media-port', '70000'], /between 1 and 65535/],
    [[...ports, '--colour', 'red'], /Unknown flag --colour/],
    [[...ports, '--host'], /--host needs a value/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseLaunch(argv)).toThrow(LaunchError);
    expect(() => parseLaunch(argv)).toThrow(message);
  });

  it('takes the viewer secret from its file, the viewer limit and the allowed origins from the environment', () => {
    const secret = Buffer.alloc(32, 7);
    const options = parseLaunch(ports, {
      STREAMGATE_VIEWER_SECRET_FILE: secretFile(secret.toString('base64url')),
      STREAMGATE_MAX_VIEWERS: '5',
      STREAMGATE_ALLOWED_ORIGINS: 'http://127.0.0.1:8080, https://portal.example',
    });
    expect(Buffer.from(options.viewerSecret ?? [])).toEqual(secret);
    expect(options.maxViewers).toBe(5);
    expect(options.allowedOrigins).toEqual(['http://127.0.0.1:8080', 'https://portal.example']);
    expect(parseLaunch(ports).maxViewers).toBe(8);
  });

  it("rests a display host's encoder after 20 s without viewers unless told, and never at 0", () => {
    expect(parseLaunch(ports).encoderRestS).toBe(20);
    expect(parseLaunch(ports, { STREAMGATE_ENCODER_REST_S: '0' }).encoderRestS).toBe(0);
    expect(() => parseLaunch(ports, { STREAMGATE_ENCODER_REST_S: '90000' })).toThrow(
      'STREAMGATE_ENCODER_REST_S must be between 0 and 86400.',
    );
    expect(() => parseLaunch(ports, { STREAMGATE_ENCODER_REST_S: '-1' })).toThrow(LaunchError);
  });

  it('sizes the session folder from STREAMGATE_FILES_MB, 512 MB unless told, within the largest a profile may ask', () => {
    expect(parseLaunch(ports).filesMb).toBe(DEFAULT_FILES_MB);
    expect(parseLaunch(ports, { STREAMGATE_FILES_MB: '64' }).filesMb).toBe(64);
    expect(parseLaunch([...ports, '--files-mb', '8'], { STREAMGATE_FILES_MB: '64' }).filesMb).toBe(8);
    expect(() => parseLaunch(ports, { STREAMGATE_FILES_MB: '0' })).toThrow(
      `STREAMGATE_FILES_MB must be between 1 and ${MAX_FILES_MB}.`,
    );
    expect(() => parseLaunch(ports, { STREAMGATE_FILES_MB: 'lots' })).toThrow(LaunchError);
  });

  it('refuses a secret too short to sign with', () => {
    expect(() => parseLaunch(ports, { STREAMGATE_VIEWER_SECRET_FILE: secretFile('c2hvcnQ') })).toThrow(
      /at least 32 bytes/,
    );
  });

  it('refuses a secret in its environment, where /proc keeps it for anyone who can read it', () => {
    const secret = Buffer.alloc(32, 7).toString('base64url');
    expect(() => parseLaunch(ports, { STREAMGATE_VIEWER_SECRET: secret })).toThrow(/in a file/);
  });

  it('reads a secret from a pipe to its end and closes it', () => {
    const secret = Buffer.alloc(32, 9);
    const fd = openSync(secretFile(secret.toString('base64url')), 'r');
    const options = parseLaunch(ports, { STREAMGATE_VIEWER_SECRET_FILE: `/dev/fd/${fd}` });
    expect(Buffer.from(options.viewerSecret ?? [])).toEqual(secret);
    expect(() => fstatSync(fd)).toThrow(/EBADF/);
  });
});

describe('a launch built by the runner and parsed by the application', () => {
  const launch: Launch = {
    sessionId: '0b7e6f2c-1f7a-4d2e-9a51-5d1c0e7a9b11',
    signalingPort: 49100,
    mediaPort: 47998,
    host: '10.0.0.5',
    appName: 'Terminal, with “quotes”',
    appVersion: '1.2.0-beta.1',
    profile: 'efficient',
    width: 640,
    height: 360,
    fps: 25,
    maxWidth: 1280,
    maxHeight: 720,
    codec: 'h264',
    audio: false,
    maxViewers: 3,
    filesMb: 2048,
    encoderRestS: 0,
    allowedOrigins: ['http://127.0.0.1:8080', 'https://portal.example'],
    usdStageUri: 'omniverse://server/stage.usd',
    stillPath: '/data/stills/a.jpg',
    testMarks: true,
    viewerSecret: new Uint8Array(Buffer.alloc(32, 5)),
    display: {
      command: ['xterm', '-e', 'sh -c "echo hi"'],
      env: { LANG: 'C.UTF-8' },
      opengl: false,
      opening: { extensions: new Set(['txt', 'tar.gz']), command: ['xterm', '-e', 'less', '{file}'] },
      sandbox: {
        network: true,
        gpu: false,
        files: { root: '/srv/catalog', names: ['models'] },
        limits: { cpus: 2, memoryMb: 1024, pids: 64 },
        cgroup: ['/sys/fs/cgroup/s/program'],
        seccompFile: '/srv/seccomp.bpf',
      },
    },
  };

  it('comes back whole from its environment, flags aside', () => {
    const { usdStageUri, viewerSecret, ...items } = launch;
    const env = launchEnvironment({
      ...items,
      display: launch.display ?? undefined,
      arguments: { usd_stage_uri: usdStageUri, other: 1 },
      secretFile: secretFile(Buffer.from(viewerSecret ?? []).toString('base64url')),
    });
    expect(parseLaunch([], env)).toEqual(launch);
  });

  it('leaves what the runner does not say to the defaults', () => {
    const env = launchEnvironment({ signalingPort: 49100, mediaPort: 47998, sessionId: 'a' });
    expect(env).toEqual({ ...portsEnv, STREAMGATE_SESSION_ID: 'a' });
    expect(parseLaunch([], env)).toEqual({ ...parseLaunch(ports), sessionId: 'a' });
  });

  it('has no program unless one is named, and gives a named one the safe defaults', () => {
    expect(parseLaunch([], portsEnv).display).toBeNull();
    expect(parseLaunch([...ports, '--', 'xterm', '-e', 'top']).display).toEqual({
      command: ['xterm', '-e', 'top'],
      env: {},
      opengl: true,
      opening: null,
      sandbox: { network: false, gpu: false, limits: { cpus: 1, memoryMb: 4096, pids: 512 } },
    });
  });

  it('reads the extensions a program opens in lower case and without a dot, and nothing without them', () => {
    const program = { ...portsEnv, STREAMGATE_PROGRAM: '["viewer"]' };
    const opening = (env: Record<string, string>) => parseLaunch([], { ...program, ...env }).display?.opening;
    expect(opening({ STREAMGATE_OPENS: 'txt, .PNG,tar.gz' })).toEqual({
      extensions: new Set(['txt', 'png', 'tar.gz']),
      command: null,
    });
    expect(opening({ STREAMGATE_OPENS: ' ', STREAMGATE_OPEN_COMMAND: '["x","{file}"]' })).toBeNull();
  });

  it.each([
    [{ STREAMGATE_SIGNALING_PORT: 'many' }, 'STREAMGATE_SIGNALING_PORT needs a whole number.'],
    [{ STREAMGATE_WIDTH: '8' }, 'STREAMGATE_WIDTH must be between 16 and 7680.'],
    [{ STREAMGATE_CODEC: 'av1' }, '--codec (or STREAMGATE_CODEC) must be vp8 or h264.'],
    [{ STREAMGATE_PROGRAM: 'xterm' }, 'STREAMGATE_PROGRAM must be a JSON array of strings.'],
    [{ STREAMGATE_PROGRAM: '[]' }, 'STREAMGATE_PROGRAM must be a JSON array of strings.'],
    [{ STREAMGATE_PROGRAM: '["xterm", 3]' }, 'STREAMGATE_PROGRAM must be a JSON array of strings.'],
    [{ STREAMGATE_PROGRAM_ENV: '["A=1"]' }, 'STREAMGATE_PROGRAM_ENV must be a JSON object.'],
    [{ STREAMGATE_PROGRAM_ENV: '{A' }, 'STREAMGATE_PROGRAM_ENV must be a JSON object.'],
    [{ STREAMGATE_SANDBOX: 'none' }, 'STREAMGATE_SANDBOX must be a JSON object.'],
    [{ STREAMGATE_SANDBOX: '"none"' }, 'STREAMGATE_SANDBOX must be a JSON object.'],
    [{ STREAMGATE_OPENS: 'txt,,png' }, /STREAMGATE_OPENS .* “” is not one/],
    [{ STREAMGATE_OPENS: 'a/b' }, /STREAMGATE_OPENS .* “a\/b” is not one/],
    ...['xterm {file}', '[]', '[""]', '["xterm", 3]', '{"0":"x"}'].map((command) => [
      { STREAMGATE_OPENS: 'txt', STREAMGATE_OPEN_COMMAND: command },
      'STREAMGATE_OPEN_COMMAND must be a JSON array of strings, the program first.',
    ]),
  ] as [Record<string, string>, string | RegExp][])('refuses %j, naming it', (bad, message) => {
    const env = { ...portsEnv, STREAMGATE_PROGRAM: '["xterm"]', ...bad };
    expect(() => parseLaunch([], env)).toThrow(LaunchError);
    expect(() => parseLaunch([], env)).toThrow(message);
  });
});
