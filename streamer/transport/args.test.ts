import { DEFAULT_FILES_MB, MAX_FILES_MB } from '../../protocol/files.ts';
import { fstatSync, openSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { secretFile } from '../../test-support/secret-file.ts';
import { ArgumentError, parseArgs } from './args.ts';

const ports = ['--signaling-port', '49100', '--media-port', '47998'];

describe('parseArgs', () => {
  it('applies the defaults when only the ports are given', () => {
    const options = parseArgs(ports);
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

  it('reads every flag the runner passes, in both spellings', () => {
    const options = parseArgs([
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
      allowedOrigins: null,
      viewerSecret: null,
      testMarks: true,
      stillPath: null,
      audio: true,
    });
  });

  it('streams VP8 unless --codec or STREAMGATE_CODEC says h264, the flag first', () => {
    expect(parseArgs(ports).codec).toBe('vp8');
    expect(parseArgs(ports, { STREAMGATE_CODEC: 'h264' }).codec).toBe('h264');
    expect(parseArgs([...ports, '--codec=vp8'], { STREAMGATE_CODEC: 'h264' }).codec).toBe('vp8');
    expect(() => parseArgs([...ports, '--codec', 'av1'])).toThrow(
      '--codec (or STREAMGATE_CODEC) must be vp8 or h264.',
    );
    expect(() => parseArgs(ports, { STREAMGATE_CODEC: 'H265' })).toThrow(ArgumentError);
  });

  it('streams sound unless --no-audio or STREAMGATE_AUDIO=off says not, and refuses another setting', () => {
    expect(parseArgs(ports).audio).toBe(true);
    expect(parseArgs(ports, { STREAMGATE_AUDIO: 'on' }).audio).toBe(true);
    expect(parseArgs(ports, { STREAMGATE_AUDIO: 'off' }).audio).toBe(false);
    expect(parseArgs([...ports, '--no-audio']).audio).toBe(false);
    expect(() => parseArgs(ports, { STREAMGATE_AUDIO: 'loud' })).toThrow(
      'STREAMGATE_AUDIO must be on or off.',
    );
  });

  it('keeps a still only where the service names its file', () => {
    expect(parseArgs(ports).stillPath).toBeNull();
    expect(parseArgs(ports, { STREAMGATE_STILL_PATH: ' ' }).stillPath).toBeNull();
    expect(parseArgs(ports, { STREAMGATE_STILL_PATH: '/data/stills/a.jpg' }).stillPath).toBe(
      '/data/stills/a.jpg',
    );
  });

  it('draws the test marks only when a flag or the environment asks', () => {
    expect(parseArgs(ports).testMarks).toBe(false);
    expect(parseArgs([...ports, '--test-marks']).testMarks).toBe(true);
    expect(parseArgs(ports, { STREAMGATE_TEST_MARKS: '1' }).testMarks).toBe(true);
    expect(parseArgs(ports, { STREAMGATE_TEST_MARKS: '0' }).testMarks).toBe(false);
  });

  it('keeps sizes even and within the maximum', () => {
    const options = parseArgs([...ports, '--width', '641', '--height', '2000', '--max-height', '1081']);
    expect(options.width).toBe(640);
    expect(options.maxHeight).toBe(1080);
    expect(options.height).toBe(1080);
  });

  it('takes the stage from STREAMGATE_ARGUMENTS unless the flag names one', () => {
    const env = { STREAMGATE_ARGUMENTS: JSON.stringify({ usd_stage_uri: 'file:///a.usd', other: 1 }) };
    expect(parseArgs(ports, env).usdStageUri).toBe('file:///a.usd');
    expect(parseArgs([...ports, '--usd-stage-uri', 'file:///b.usd'], env).usdStageUri).toBe('file:///b.usd');
    expect(parseArgs(ports, { STREAMGATE_ARGUMENTS: '{not json' }).usdStageUri).toBe('');
    expect(parseArgs(ports, { STREAMGATE_ARGUMENTS: '["x"]' }).usdStageUri).toBe('');
  });

  it.each([
    [['--media-port', '47998'], /--signaling-port is required/],
    [['--signaling-port', '49100'], /--media-port is required/],
    [[...ports, '--fps', 'fast'], /--fps needs a whole number/],
    [[...ports, '--width', '-5'], /--width needs a whole number/],
    [[...ports, '--media-port', '70000'], /between 1 and 65535/],
    [[...ports, '--colour', 'red'], /Unknown flag --colour/],
    [[...ports, '--host'], /--host needs a value/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(ArgumentError);
    expect(() => parseArgs(argv)).toThrow(message);
  });

  it('takes the viewer secret from its file, the viewer limit and the allowed origins from the environment', () => {
    const secret = Buffer.alloc(32, 7);
    const options = parseArgs(ports, {
      STREAMGATE_VIEWER_SECRET_FILE: secretFile(secret.toString('base64url')),
      STREAMGATE_MAX_VIEWERS: '5',
      STREAMGATE_ALLOWED_ORIGINS: 'http://127.0.0.1:8080, https://portal.example',
    });
    expect(Buffer.from(options.viewerSecret ?? [])).toEqual(secret);
    expect(options.maxViewers).toBe(5);
    expect(options.allowedOrigins).toEqual(['http://127.0.0.1:8080', 'https://portal.example']);
    expect(parseArgs(ports).maxViewers).toBe(8);
  });

  it('sizes the session folder from STREAMGATE_FILES_MB, 512 MB unless told, within the largest a profile may ask', () => {
    expect(parseArgs(ports).filesMb).toBe(DEFAULT_FILES_MB);
    expect(parseArgs(ports, { STREAMGATE_FILES_MB: '64' }).filesMb).toBe(64);
    expect(parseArgs([...ports, '--files-mb', '8'], { STREAMGATE_FILES_MB: '64' }).filesMb).toBe(8);
    expect(() => parseArgs(ports, { STREAMGATE_FILES_MB: '0' })).toThrow(
      `STREAMGATE_FILES_MB must be between 1 and ${MAX_FILES_MB}.`,
    );
    expect(() => parseArgs(ports, { STREAMGATE_FILES_MB: 'lots' })).toThrow(ArgumentError);
  });

  it('refuses a secret too short to sign with', () => {
    expect(() => parseArgs(ports, { STREAMGATE_VIEWER_SECRET_FILE: secretFile('c2hvcnQ') })).toThrow(
      /at least 32 bytes/,
    );
  });

  it('refuses a secret in its environment, where /proc keeps it for anyone who can read it', () => {
    const secret = Buffer.alloc(32, 7).toString('base64url');
    expect(() => parseArgs(ports, { STREAMGATE_VIEWER_SECRET: secret })).toThrow(/in a file/);
  });

  it('reads a secret from a pipe to its end and closes it', () => {
    const secret = Buffer.alloc(32, 9);
    const fd = openSync(secretFile(secret.toString('base64url')), 'r');
    const options = parseArgs(ports, { STREAMGATE_VIEWER_SECRET_FILE: `/dev/fd/${fd}` });
    expect(Buffer.from(options.viewerSecret ?? [])).toEqual(secret);
    expect(() => fstatSync(fd)).toThrow(/EBADF/);
  });
});
