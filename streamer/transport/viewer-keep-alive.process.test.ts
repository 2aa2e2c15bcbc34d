/**
 * Keep-alives at a real stream server with real WebRTC viewers (node-datachannel, which sends no RTCP of its own:
 * a viewer that stops sending is silent): one that stops its keep-alives is gone within 5 s, one that never sent
 * any keeps its place, and the application never sees them, from a watcher either.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { KEEP_ALIVE_EVERY_MS, KEEP_ALIVE_MESSAGE, type AppMessage } from '../../protocol/data-channels.ts';
import { freeUdpPort } from '../../test-support/ports.ts';
import { until } from '../../test-support/until.ts';
import { makeOffer, openViewer } from '../../test-support/whep-viewer.ts';
import { Scope } from '../runtime/scope.ts';
import { StreamServer } from './stream-server.ts';
import { KEEP_ALIVE_TIMEOUT_MS } from './viewer-liveness.ts';

/** A watch-only viewer (`?mode=watch`) and what it receives on `messages`. */
async function openWatcher(base: string) {
  const viewer = await makeOffer();
  const received: AppMessage[] = [];
  viewer.messages.onMessage((text) => void received.push(JSON.parse(String(text)) as AppMessage));
  const res = await fetch(`${base}/whep?mode=watch`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/sdp' },
    body: viewer.sdp,
  });
  expect(res.status).toBe(201);
  viewer.pc.setRemoteDescription(await res.text(), 'answer');
  await until('the watcher’s messages channel to open', () => viewer.messages.isOpen(), 10_000);
  return { ...viewer, received };
}

describe('viewers that send keep-alives, and one that sends none', () => {
  let server: StreamServer | undefined;
  const closers: (() => void)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) close();
    await server?.close();
  });

  it('drops the one whose keep-alives stop within 5 s, and keeps the others', async () => {
    const seen: string[] = [];
    const counts: [number, number][] = [];
    const stream = new StreamServer(
      new Scope(),
      {
        sessionId: 'keep-alive',
        host: '127.0.0.1',
        signalingPort: 0,
        mediaPort: await freeUdpPort(),
        fps: 30,
        maxViewers: 3,
        allowedOrigins: null,
        viewerSecret: null,
      },
      // A query, so that it reaches the application from a viewer not in control (the first one is).
      { queries: new Set(['hello']), size: () => ({ width: 320, height: 240, fps: 30 }) },
    );
    server = stream;
    stream.on('message', (message) => void seen.push(message.event_type));
    stream.on('viewers', (count, controlling) => void counts.push([count, controlling]));
    await stream.listen();
    const base = `http://127.0.0.1:${stream.signalingPort}`;
    // Another WHEP client: it never sends a keep-alive, nor anything else.
    const silent = await openViewer(base);
    closers.push(() => silent.drop());
    const watcher = await openWatcher(base);
    closers.push(() => watcher.pc.close());
    const keeping = setInterval(() => watcher.messages.sendMessage(KEEP_ALIVE_MESSAGE), KEEP_ALIVE_EVERY_MS);
    closers.push(() => clearInterval(keeping));
    watcher.messages.sendMessage(KEEP_ALIVE_MESSAGE);
    const player = await openViewer(base);
    closers.push(() => player.drop());
    // Three viewers, one of them (the first) in control.
    expect(counts.at(-1)).toEqual([3, 1]);

    player.messages.sendMessage(JSON.stringify({ event_type: 'hello', payload: {} }));
    player.messages.sendMessage(KEEP_ALIVE_MESSAGE);
    await until('the application to hear the player', () => seen.length > 0, 10_000);
    // Its last keep-alive: from here on it sends nothing, as a player whose tab was killed.
    player.messages.sendMessage(KEEP_ALIVE_MESSAGE);
    const last = performance.now();
    await until('the player to be gone', () => counts.at(-1)?.[0] === 2, 10_000, 20);
    const goneAfter = performance.now() - last;
    expect(goneAfter).toBeGreaterThan(KEEP_ALIVE_TIMEOUT_MS - 100);
    expect(goneAfter).toBeLessThan(5_000);
    // The watcher, which keeps sending them, and the silent one, which never did, are still there.
    expect(counts.at(-1)).toEqual([2, 1]);
    await new Promise((resolve) => setTimeout(resolve, 2 * KEEP_ALIVE_EVERY_MS));
    expect(stream.viewers()).toBe(2);

    expect(seen).toEqual(['hello']);
    // A watch-only viewer may send them: no refusal came back (only who is here, as to everyone).
    expect(watcher.received.filter((m) => m.event_type !== 'people')).toEqual([]);
  });
});
