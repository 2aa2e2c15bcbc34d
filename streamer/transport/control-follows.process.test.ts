/**
 * A clipboard follows control, as the display host uses it: the stream server's `'control'` broadcasts reach
 * the viewer in control alone, and only its messages reach the application, whoever it is as control changes
 * hands. A real stream server with real WebRTC viewers (node-datachannel), an owner and a watcher with tickets.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppMessage } from '../../protocol/data-channels.ts';
import { signTicket, type TicketScope } from '../../protocol/viewer-ticket.ts';
import { freeUdpPort } from '../../test-support/ports.ts';
import { until } from '../../test-support/until.ts';
import { openViewer, type Viewer } from '../../test-support/whep-viewer.ts';
import { Scope } from '../runtime/scope.ts';
import { StreamServer } from './stream-server.ts';

const SESSION = 'control-follows';
const secret = new Uint8Array(Buffer.alloc(32, 5));
const ticket = async (scope: TicketScope) => (await signTicket(secret, SESSION, scope, 60)).ticket;

const clipboard = (text: string): AppMessage => ({ event_type: 'clipboard', payload: { text } });
const texts = (viewer: Viewer) =>
  viewer.received
    .filter((m) => m.event_type === 'clipboard')
    .map((m) => (m.payload as { text: string }).text);
const controller = (viewer: Viewer) =>
  (viewer.received.filter((m) => m.event_type === 'people').at(-1)?.payload as { controller?: string })
    ?.controller;
const you = (viewer: Viewer) =>
  (viewer.received.find((m) => m.event_type === 'people')?.payload as { you: string }).you;

describe("a 'control' broadcast and the messages that reach the application", () => {
  let stream: StreamServer;
  let owner: Viewer;
  let watcher: Viewer;
  /** The clipboard texts the application was given, as the display host pastes them. */
  const pasted: string[] = [];

  beforeAll(async () => {
    stream = new StreamServer(
      new Scope(),
      {
        sessionId: SESSION,
        host: '127.0.0.1',
        signalingPort: 0,
        mediaPort: await freeUdpPort(),
        fps: 30,
        maxViewers: 4,
        allowedOrigins: null,
        viewerSecret: secret,
      },
      { queries: new Set(), size: () => ({ width: 320, height: 240, fps: 30 }) },
    );
    stream.on('message', (message) => {
      if (message.event_type === 'clipboard') pasted.push(String(message.payload.text));
    });
    await stream.listen();
    const base = `http://127.0.0.1:${stream.signalingPort}`;
    owner = await openViewer(base, 20_000, await ticket('control'));
    watcher = await openViewer(base, 20_000, await ticket('watch'));
    await until('both to know who is here', () => controller(owner) && controller(watcher));
  });

  afterAll(async () => {
    await owner?.close();
    await watcher?.close();
    await stream?.close();
  });

  it('reach the owner in control alone, then the watcher once it is given control', async () => {
    stream.broadcast(clipboard('to the owner'));
    stream.broadcast(clipboard('only the owner'), 'control');
    await until("the owner's clipboard", () => texts(owner).includes('only the owner'));
    await until('the broadcast to all at the watcher', () => texts(watcher).includes('to the owner'));

    owner.messages.sendMessage(JSON.stringify({ event_type: 'controlGive', payload: { to: you(watcher) } }));
    await until('the watcher in control', () => controller(owner) === you(watcher));
    stream.broadcast(clipboard('only the watcher'), 'control');
    await until("the watcher's clipboard", () => texts(watcher).includes('only the watcher'));
    await sleep(300);
    expect(texts(owner)).toEqual(['to the owner', 'only the owner']);
    expect(texts(watcher)).toEqual(['to the owner', 'only the watcher']);
  });

  it("take only the messages of the viewer in control: the watcher's now, the owner's no longer", async () => {
    owner.messages.sendMessage(JSON.stringify(clipboard('from the owner')));
    watcher.messages.sendMessage(JSON.stringify(clipboard('from the watcher')));
    await until("the watcher's text pasted", () => pasted.includes('from the watcher'));
    await until('the owner told why not', () =>
      owner.received.some(
        (m) =>
          m.event_type === 'error' &&
          /not in control/.test(String((m.payload as { message: string }).message)),
      ),
    );
    expect(pasted).toEqual(['from the watcher']);
  });
});
