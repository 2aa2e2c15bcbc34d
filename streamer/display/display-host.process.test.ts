/**
 * A display host whose encoder fails to start, with everything else real (Xvfb, the program in its sandbox,
 * the stream server on its port): the start fails and leaves none of them behind.
 */
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canBind } from '../../server/runners/port-pool.ts';
import { partsSeeingPrograms } from '../../test-support/display-parts.ts';
import { freePort, freeUdpPort } from '../../test-support/ports.ts';
import { Encoder } from '../media/encoder.ts';
import { DISPLAY_PARTS, startDisplayHost, type DisplayParts } from './display-host.ts';
import { parseLaunch, sandboxSettings } from '../../protocol/launch.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function hostOptions() {
  const signalingPort = await freePort();
  const options = parseLaunch(
    ['--signaling-port', String(signalingPort), '--media-port', String(await freeUdpPort())],
    {},
  );
  options.width = options.maxWidth = 320;
  options.height = options.maxHeight = 200;
  return { options, signalingPort };
}

describe('a display host whose encoder cannot start', () => {
  it('stops its program, its stream server and its X server before the start fails', async () => {
    const { options, signalingPort } = await hostOptions();
    const made: { xPid?: number; socket?: string; programPid?: number; listening?: boolean } = {};
    const parts: DisplayParts = {
      ...partsSeeingPrograms((child) => (made.programPid = child.pid)),
      async startXServer(...args) {
        const x = await DISPLAY_PARTS.startXServer(...args);
        made.xPid = x.pid;
        made.socket = x.socket;
        return x;
      },
      async startEncoder() {
        made.listening = !(await canBind(signalingPort, 'tcp'));
        throw new Error('no encoder here');
      },
    };
    const start = startDisplayHost(
      options,
      { command: ['xterm'], env: {} },
      () => undefined,
      sandboxSettings(undefined),
      parts,
    );
    await expect(start).rejects.toThrow('no encoder here');
    // All of it was there when the encoder failed...
    expect(made.listening).toBe(true);
    expect(made.xPid).toBeGreaterThan(0);
    expect(made.programPid).toBeGreaterThan(0);
    // ...and none of it is left.
    expect(alive(made.xPid as number)).toBe(false);
    expect(alive(made.programPid as number)).toBe(false);
    expect(existsSync(made.socket as string)).toBe(false);
    expect(await canBind(signalingPort, 'tcp')).toBe(true);
  });
});

describe('a display host whose stream encodes nothing', () => {
  it('fails its session in words instead of staying ready while viewers wait for video', async () => {
    // An encoder that takes every frame and sends no packet: ready, and silent for ever, as the sessions that
    // stayed on "Waiting for video…" were.
    const dir = mkdtempSync(path.join(tmpdir(), 'silent-encoder-'));
    const silent = path.join(dir, 'ffmpeg');
    writeFileSync(silent, '#!/bin/sh\nexec cat > /dev/null\n');
    chmodSync(silent, 0o755);
    const { options } = await hostOptions();
    const parts: DisplayParts = {
      ...DISPLAY_PARTS,
      async startEncoder(_options, encoderOptions, size) {
        const encoder = new Encoder({ ...encoderOptions, ffmpegPath: silent });
        await encoder.start(size);
        return encoder;
      },
    };
    const host = await startDisplayHost(
      options,
      { command: ['xterm'], env: {} },
      () => undefined,
      sandboxSettings(undefined),
      parts,
    );
    try {
      const began = performance.now();
      expect(await host.done).toEqual({
        code: 1,
        reason: 'The display host stopped streaming: no picture was encoded for 10 s.',
      });
      expect(performance.now() - began).toBeLessThan(15_000);
    } finally {
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
