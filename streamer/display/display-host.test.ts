import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { AppMessage } from '../../protocol/data-channels.ts';
import type { Scope } from '../runtime/scope.ts';
import type { StreamApplication, StreamEvents } from '../transport/stream-server.ts';
import type { Viewer } from '../transport/viewer.ts';
import { DISPLAY_PARTS, startDisplayHost, type DisplayParts } from './display-host.ts';
import { parseLaunch, sandboxSettings } from '../../protocol/launch.ts';

/** Parts that record what they made and what was undone; `failing` names the part whose start throws. */
function fakeParts(failing?: keyof DisplayParts) {
  const events: string[] = [];
  let app: StreamApplication | undefined;
  const stream = new EventEmitter<StreamEvents>();
  const broadcasts: AppMessage[] = [];
  /** To whom each broadcast went: everyone, or the viewer in control. */
  const audiences: ('all' | 'control')[] = [];
  /** What the display's clipboard was set to. */
  const pasted: string[] = [];
  const clipboard = Object.assign(new EventEmitter(), {
    text: '',
    set: (text: string) => void pasted.push((clipboard.text = text)),
  });
  clipboard.on('text', (text: string) => (clipboard.text = text));
  const capture = Object.assign(new EventEmitter(), {
    inFrames: [] as boolean[],
    cursorInFrames: (on: boolean) => void capture.inFrames.push(on),
    close: () => void events.push('capture closed'),
  });
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
        weigh: (factor: number) => void events.push(`weighed ${factor}`),
        close: async () => void events.push('sandbox closed'),
      };
    },
    async connect() {
      fail('connect');
      events.push('connected');
      return Object.assign(new EventEmitter(), {
        fit: () => undefined,
        releaseAll: () => undefined,
        clipboard,
        close: () => void events.push('connection closed'),
      });
    },
    openStreamServer(scope: Scope, _options: unknown, application: StreamApplication) {
      scope.defer(() => events.push('stream server closed'));
      app = application;
      return Object.assign(stream, {
        isReady: true,
        listen: async () => {
          fail('openStreamServer');
          events.push('stream server listens');
        },
        broadcast: (message: AppMessage, to: 'all' | 'control' = 'all') => {
          broadcasts.push(message);
          audiences.push(to);
        },
      });
    },
    async startEncoder() {
      fail('startEncoder');
      events.push('encoder started');
      return { stop: () => void events.push('encoder stopped'), resize: () => undefined };
    },
    async startCapture() {
      fail('startCapture');
      return capture;
    },
    async openFiles() {
      fail('openFiles');
      events.push('files made');
      return {
        folder: { dir: '/nonexistent/files' },
        tellChangesTo: () => undefined,
        close: async () => void events.push('files released'),
      };
    },
  } as unknown as DisplayParts;
  return {
    parts,
    events,
    capture,
    broadcasts,
    audiences,
    clipboard,
    pasted,
    app: () => app as StreamApplication,
    stream,
  };
}

const options = parseLaunch(['--signaling-port', '49999', '--media-port', '49998'], {});
const program = { command: ['some-program'], env: {} };
const start = (parts: DisplayParts) =>
  startDisplayHost(options, program, () => undefined, sandboxSettings(undefined), parts);

/** What a start that fails once its stream server is made undoes from there, newest first. */
const UNDONE_FROM_STREAM_SERVER = [
  'stream server closed',
  'program got SIGTERM',
  'files released',
  'connection closed',
  'X server stopped',
  'sandbox closed',
];

describe('a display host whose start fails', () => {
  it('when its encoder cannot start, stops the stream server, the program, the display and the sandbox, newest first', async () => {
    const { parts, events } = fakeParts('startEncoder');
    await expect(start(parts)).rejects.toThrow('startEncoder failed');
    const undone = events.slice(events.indexOf('stream server listens') + 1);
    expect(undone).toEqual(UNDONE_FROM_STREAM_SERVER);
  });

  it('when its stream server cannot listen (its port taken), closes it and undoes the program, the display and the sandbox', async () => {
    const { parts, events } = fakeParts('openStreamServer');
    await expect(start(parts)).rejects.toThrow('openStreamServer failed');
    expect(events).not.toContain('encoder started');
    expect(events.slice(-6)).toEqual(UNDONE_FROM_STREAM_SERVER);
  });

  it('when its X server cannot start, still closes the sandbox it was to run in', async () => {
    const { parts, events } = fakeParts('startXServer');
    await expect(start(parts)).rejects.toThrow('startXServer failed');
    expect(events).toEqual(['sandbox made', 'sandbox closed']);
  });

  it('when its folder cannot be made, starts no program, and undoes the display and the sandbox', async () => {
    const { parts, events } = fakeParts('openFiles');
    await expect(start(parts)).rejects.toThrow('openFiles failed');
    expect(events).not.toContain('program started');
    expect(events.slice(-3)).toEqual(['connection closed', 'X server stopped', 'sandbox closed']);
  });

  it('when its sandbox cannot be made, starts no X server (it would run in that sandbox)', async () => {
    const { parts, events } = fakeParts('prepareSandbox');
    await expect(start(parts)).rejects.toThrow('prepareSandbox failed');
    expect(events).toEqual([]);
  });

  it('when its capture cannot start, stops the encoder too', async () => {
    const { parts, events } = fakeParts('startCapture');
    await expect(start(parts)).rejects.toThrow('startCapture failed');
    expect(events.slice(-7)).toEqual(['encoder stopped', ...UNDONE_FROM_STREAM_SERVER]);
  });

  it('takes the real parts unless told', () => {
    expect(Object.keys(DISPLAY_PARTS).sort()).toEqual(
      [
        'connect',
        'openFiles',
        'prepareSandbox',
        'startCapture',
        'startEncoder',
        'openStreamServer',
        'startXServer',
      ].sort(),
    );
  });
});

describe('a started display host and the pointer', () => {
  const image = (alpha: number) => ({
    width: 1,
    height: 1,
    xhot: 0,
    yhot: 0,
    pixels: Buffer.from([0, 0, 0, alpha]),
  });

  it('leaves the pointer out of the frames while a controlling viewer draws it, and in while only watchers are there', async () => {
    const { parts, capture, stream } = fakeParts();
    const host = await start(parts);
    try {
      expect(capture.inFrames).toEqual([true]);
      stream.emit('viewers', 1, 1);
      stream.emit('viewers', 2, 1);
      stream.emit('viewers', 1, 0);
      stream.emit('viewers', 0, 0);
      expect(capture.inFrames).toEqual([true, false, false, true, true]);
    } finally {
      await host.close();
    }
  });

  it("sends every viewer the pointer's image when it changes, and a viewer that joins the current one", async () => {
    const { parts, capture, stream, broadcasts } = fakeParts();
    const host = await start(parts);
    try {
      const greeted: AppMessage[] = [];
      const viewer = { sendMessage: (m: AppMessage) => void greeted.push(m) } as unknown as Viewer;
      stream.emit('messagesOpen', viewer);
      expect(greeted).toEqual([]);
      capture.emit('cursor', image(255));
      capture.emit('cursor', image(0));
      expect(broadcasts.map((m) => [m.event_type, Object.keys(m.payload)])).toEqual([
        ['cursorImage', ['url', 'hotspot_x', 'hotspot_y']],
        ['cursorImage', ['hidden']],
      ]);
      stream.emit('messagesOpen', viewer);
      expect(greeted).toEqual([{ event_type: 'cursorImage', payload: { hidden: true } }]);
    } finally {
      await host.close();
    }
  });
});

describe('a started display host and the clipboard', () => {
  it('sends what the program copies to the viewer in control alone, and pastes what a viewer sends', async () => {
    const { parts, app, stream, broadcasts, audiences, clipboard, pasted } = fakeParts();
    const host = await start(parts);
    try {
      clipboard.emit('text', 'copied in the program');
      expect(broadcasts).toEqual([{ event_type: 'clipboard', payload: { text: 'copied in the program' } }]);
      // 'control': the viewer in control, whoever it is (stream-server.ts, people-hub.ts), never the others.
      expect(audiences).toEqual(['control']);
      // Only the viewer in control's messages reach the application (viewer.ts): this one's is pasted.
      const answers: AppMessage[] = [];
      const viewer = { sendMessage: (m: AppMessage) => void answers.push(m) } as unknown as Viewer;
      stream.emit('message', { event_type: 'clipboard', payload: { text: 'from the viewer' } }, viewer);
      expect(answers).toEqual([]);
      expect(pasted).toEqual(['from the viewer']);
      // Text that is not a clipboard's is answered with an error, and pasted nowhere.
      stream.emit('message', { event_type: 'clipboard', payload: { text: 42 } }, viewer);
      expect(answers.map((m) => m.event_type)).toEqual(['error']);
      expect(pasted).toEqual(['from the viewer']);
      // Clipboard text is not a query: a viewer not in control never gets it to the program.
      expect(app().queries.has('clipboard')).toBe(false);
      // Control handed over: the new controller is given the clipboard as it is; nobody, nothing.
      const told: AppMessage[] = [];
      const next = { sendMessage: (message: AppMessage) => void told.push(message) } as unknown as Viewer;
      stream.emit('control', next);
      stream.emit('control', null);
      expect(told).toEqual([{ event_type: 'clipboard', payload: { text: 'from the viewer' } }]);
    } finally {
      await host.close();
    }
  });
});
