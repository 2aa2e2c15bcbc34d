import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../transport/args.ts';
import { DISPLAY_PARTS, startDisplayHost, type DisplayParts } from './display-host.ts';
import { sandboxSettings } from './program-sandbox.ts';

/** Parts that record what they made and what was undone; `failing` names the part whose start throws. */
function fakeParts(failing: keyof DisplayParts) {
  const events: string[] = [];
  const fail = (part: keyof DisplayParts) => {
    if (part === failing) throw new Error(`${part} failed`);
  };
  const program = Object.assign(new EventEmitter(), {
    pid: 4242,
    exitCode: null as number | null,
    signalCode: null as string | null,
    stderr: null,
    kill(signal: string) {
      events.push(`program got ${signal}`);
      program.signalCode = signal;
      setImmediate(() => program.emit('exit', null, signal));
    },
  });
  const parts = {
    async startXServer() {
      fail('startXServer');
      events.push('X server started');
      return {
        display: ':99',
        socket: '/tmp/.X11-unix/X99',
        authFile: '/nonexistent/Xauthority',
        pid: 1,
        framebuffer: null,
        exited: new Promise<string>(() => undefined),
        stop: async () => void events.push('X server stopped'),
      };
    },
    async prepareSandbox() {
      fail('prepareSandbox');
      events.push('sandbox made');
      return {
        spawn: () => (events.push('program started'), program),
        ending: () => ({ signal: null, outOfMemory: null }),
        close: async () => void events.push('sandbox closed'),
      };
    },
    async connect() {
      fail('connect');
      events.push('connected');
      return Object.assign(new EventEmitter(), {
        fit: () => undefined,
        releaseAll: () => undefined,
        clipboard: new EventEmitter(),
        close: () => void events.push('connection closed'),
      });
    },
    async startStreamServer() {
      fail('startStreamServer');
      events.push('stream server listens');
      return { close: async () => void events.push('stream server closed') };
    },
    async startEncoder() {
      fail('startEncoder');
      events.push('encoder started');
      return { stop: () => void events.push('encoder stopped') };
    },
    async startCapture() {
      fail('startCapture');
      return Object.assign(new EventEmitter(), { close: () => void events.push('capture closed') });
    },
  } as unknown as DisplayParts;
  return { parts, events };
}

const options = parseArgs(['--signaling-port', '49999', '--media-port', '49998'], {});
const program = { command: ['some-program'], env: {} };
const start = (parts: DisplayParts) =>
  startDisplayHost(options, program, () => undefined, sandboxSettings(undefined), parts);

describe('a display host whose start fails', () => {
  it('when its encoder cannot start, stops the stream server, the program, the display and the sandbox, newest first', async () => {
    const { parts, events } = fakeParts('startEncoder');
    await expect(start(parts)).rejects.toThrow('startEncoder failed');
    const undone = events.slice(events.indexOf('stream server listens') + 1);
    expect(undone).toEqual([
      'stream server closed',
      'program got SIGTERM',
      'connection closed',
      'sandbox closed',
      'X server stopped',
    ]);
  });

  it('when its X server cannot start, still closes the sandbox made beside it', async () => {
    const { parts, events } = fakeParts('startXServer');
    await expect(start(parts)).rejects.toThrow('startXServer failed');
    expect(events).toEqual(['sandbox made', 'sandbox closed']);
  });

  it('when its capture cannot start, stops the encoder too', async () => {
    const { parts, events } = fakeParts('startCapture');
    await expect(start(parts)).rejects.toThrow('startCapture failed');
    expect(events.slice(-6)).toEqual([
      'encoder stopped',
      'stream server closed',
      'program got SIGTERM',
      'connection closed',
      'sandbox closed',
      'X server stopped',
    ]);
  });

  it('takes the real parts unless told', () => {
    expect(Object.keys(DISPLAY_PARTS).sort()).toEqual(
      [
        'connect',
        'prepareSandbox',
        'startCapture',
        'startEncoder',
        'startStreamServer',
        'startXServer',
      ].sort(),
    );
  });
});
