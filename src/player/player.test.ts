import { describe, expect, it, vi } from 'vitest';
import { KEEP_ALIVE_EVERY_MS, KEEP_ALIVE_MESSAGE } from './data-channels/app-messages';
import { FakePeerConnection } from './testing/fake-peer-connection';
import { lastPeer, play, posts, setup, withPlayerHarness, whepResponse } from './testing/player-harness';

withPlayerHarness();

describe('Player', () => {
  it('offers recvonly video and audio and two channels, posts WHEP to the route and rewrites the candidate', async () => {
    const h = setup();
    h.player.connect();
    await play(h);
    const pc = lastPeer();
    expect(pc.transceivers).toEqual([
      { kind: 'video', direction: 'recvonly' },
      { kind: 'audio', direction: 'recvonly' },
    ]);
    expect(pc.channels.map((c) => c.label)).toEqual(['input', 'messages']);
    const [url, init] = posts(h)[0]!;
    expect(url).toBe('http://stream.example.org:49210/whep');
    expect(init.headers).toEqual({ 'Content-Type': 'application/sdp' });
    expect(init.body).toContain('a=recvonly');
    expect(pc.remoteDescription?.sdp).toContain(' stream.example.org 31000 typ host');
    expect(h.states.map((s) => s.kind)).toEqual(['connecting', 'waiting-for-video', 'playing']);
    expect(h.video.srcObject).toBe(pc.remoteStream);
  });

  it('plays an answer that rejects the audio: video only, and no sound', async () => {
    const h = setup();
    const sound = vi.fn();
    h.player.addEventListener('sound', sound);
    h.player.connect();
    await play(h);
    expect(lastPeer().remoteDescription?.sdp).not.toContain('m=audio');
    expect(h.states.at(-1)?.kind).toBe('playing');
    expect(h.player.hasSound).toBe(false);
    expect(sound).not.toHaveBeenCalled();
  });

  it('plays both tracks in one stream, set on the element once, and says the session has sound', async () => {
    const h = setup();
    const sound = vi.fn();
    h.player.addEventListener('sound', sound);
    h.player.connect();
    await play(h);
    const shown = h.video.srcObject;
    lastPeer().fireTrack('audio');
    expect(h.video.srcObject).toBe(shown);
    expect(h.player.stream?.getTracks().map((t) => t.kind)).toEqual(['video', 'audio']);
    expect(h.player.hasSound).toBe(true);
    expect(sound).toHaveBeenLastCalledWith(true);
    // The connection lost, the sound goes with it until the next one brings its own.
    lastPeer().setConnectionState('failed');
    expect(h.player.hasSound).toBe(false);
    expect(sound).toHaveBeenLastCalledWith(false);
  });

  it('puts an audio track that comes in a stream of its own into the stream the element plays', async () => {
    const h = setup();
    h.player.connect();
    await vi.advanceTimersByTimeAsync(0);
    lastPeer().fireTrack('audio', 'own');
    lastPeer().fireTrack('video', 'own');
    const stream = h.video.srcObject as unknown as MediaStream;
    expect(stream.getTracks().map((t) => t.kind)).toEqual(['audio', 'video']);
    expect(h.player.hasSound).toBe(true);
  });

  it('numbers input events and sends application messages both ways', async () => {
    const h = setup();
    const messages: unknown[] = [];
    h.player.addEventListener('message', (m) => messages.push(m));
    h.player.connect();
    await play(h);
    const pc = lastPeer();
    pc.channel('input').open();
    pc.channel('messages').open();
    expect(h.player.sendInput({ type: 'keydown', key: 'a', code: 'KeyA' })).toBe(true);
    expect(h.player.sendInput({ type: 'pointermove', x: 1, y: 2, buttons: 0 })).toBe(true);
    expect(pc.channel('input').sent.map((s) => JSON.parse(s))).toEqual([
      { type: 'keydown', key: 'a', code: 'KeyA', seq: 1 },
      { type: 'pointermove', x: 1, y: 2, buttons: 0, seq: 2 },
    ]);
    expect(h.player.sendMessage('openStageRequest', { url: 'a.usd' })).toBe(true);
    expect(JSON.parse(pc.channel('messages').sent.at(-1)!)).toEqual({
      event_type: 'openStageRequest',
      payload: { url: 'a.usd' },
    });
    pc.channel('messages').receive('{"event_type":"openedStageResult","payload":{"result":"success"}}');
    expect(messages).toMatchObject([
      { direction: 'out', event_type: 'openStageRequest' },
      { direction: 'in', event_type: 'openedStageResult', payload: { result: 'success' } },
    ]);
  });

  it('keeps the viewer alive at the application: a keep-alive on messages every second while it is open', async () => {
    for (const mode of ['control', 'watch'] as const) {
      const h = setup({ mode });
      const messages: unknown[] = [];
      h.player.addEventListener('message', (m) => messages.push(m));
      h.player.connect();
      await play(h);
      const pc = lastPeer();
      const channel = pc.channel('messages');
      await vi.advanceTimersByTimeAsync(5_000);
      expect(channel.sent).toEqual([]);
      // One as the channel opens, so that the application knows at once, then one a second.
      channel.open();
      expect(channel.sent).toEqual([KEEP_ALIVE_MESSAGE]);
      await vi.advanceTimersByTimeAsync(3 * KEEP_ALIVE_EVERY_MS);
      expect(channel.sent).toEqual(Array(4).fill(KEEP_ALIVE_MESSAGE));
      expect(JSON.parse(KEEP_ALIVE_MESSAGE)).toEqual({ event_type: 'keepAlive', payload: {} });
      // Not the page's business: no message event, and the input channel carries none.
      expect(messages).toEqual([]);
      pc.channel('input').open();
      await vi.advanceTimersByTimeAsync(KEEP_ALIVE_EVERY_MS);
      expect(pc.channel('input').sent).toEqual([]);
      // A lost connection stops them; its successor sends its own once its channel opens.
      pc.setConnectionState('failed');
      await vi.advanceTimersByTimeAsync(10_000);
      expect(channel.sent).toHaveLength(5);
      h.player.disconnect();
    }
  });

  it('asks for a watch-only viewer and sends no input in watch mode', async () => {
    const h = setup({ mode: 'watch' });
    h.player.connect();
    await play(h);
    lastPeer().channel('input').open();
    expect(posts(h)[0]![0]).toBe('http://stream.example.org:49210/whep?mode=watch');
    expect(h.player.sendInput({ type: 'keydown', key: 'a', code: 'KeyA' })).toBe(false);
  });

  it('reconnects with backoff after the connection fails and plays again', async () => {
    const h = setup();
    h.player.connect();
    await play(h);
    lastPeer().setConnectionState('failed');
    await vi.advanceTimersByTimeAsync(0);
    expect(h.states.at(-1)).toMatchObject({ kind: 'reconnecting', attempt: 1, delayMs: 1000 });
    expect(FakePeerConnection.created[0]!.closed).toBe(true);
    await vi.advanceTimersByTimeAsync(999);
    expect(posts(h)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await play(h);
    expect(posts(h)).toHaveLength(2);
    expect(h.states.at(-1)).toEqual({ kind: 'playing' });
  });

  it('connect() during a countdown or an attempt starts one attempt, not two', async () => {
    const h = setup();
    h.player.connect();
    h.player.connect();
    await play(h);
    expect(posts(h)).toHaveLength(1);
    lastPeer().setConnectionState('failed');
    await vi.advanceTimersByTimeAsync(0);
    expect(h.player.state.kind).toBe('reconnecting');
    h.player.connect();
    await play(h);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(posts(h)).toHaveLength(2);
    expect(h.player.state).toEqual({ kind: 'playing' });
  });

  it('rides out a short ICE disconnection but reconnects after a long one', async () => {
    const h = setup();
    h.player.connect();
    await play(h);
    const pc = lastPeer();
    pc.setConnectionState('disconnected');
    await vi.advanceTimersByTimeAsync(2000);
    pc.setConnectionState('connected');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(h.player.state).toEqual({ kind: 'playing' });
    pc.setConnectionState('disconnected');
    await vi.advanceTimersByTimeAsync(2500);
    expect(h.player.state.kind).toBe('reconnecting');
    expect(pc.closed).toBe(true);
  });

  it('gives up on an attempt whose video never arrives', async () => {
    const h = setup({ connectTimeoutMs: 5000 });
    h.player.connect();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.player.state.kind).toBe('waiting-for-video');
    await vi.advanceTimersByTimeAsync(5000);
    expect(h.player.state).toMatchObject({ kind: 'reconnecting', reason: 'No video arrived in time.' });
  });

  it('treats the application closing the messages channel as a lost connection', async () => {
    const h = setup();
    h.player.connect();
    await play(h);
    lastPeer().channel('messages').close();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.states.at(-1)?.kind).toBe('reconnecting');
  });

  it('never reconnects once the page says the session has ended', async () => {
    const h = setup();
    h.player.connect();
    await play(h);
    lastPeer().setConnectionState('failed');
    await vi.advanceTimersByTimeAsync(0);
    expect(h.player.state.kind).toBe('reconnecting');
    h.player.markEnded('This session has ended.');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(h.states.at(-1)).toEqual({ kind: 'ended', reason: 'This session has ended.' });
    expect(posts(h)).toHaveLength(1);
    h.player.connect();
    await vi.advanceTimersByTimeAsync(0);
    expect(posts(h)).toHaveLength(1);
  });

  it('refuses routes without signaling and media ports, and asks nothing', async () => {
    const h = setup({ routes: { 'stream.example.org': [] }, reconnect: { maxAttempts: 0 } });
    h.player.connect();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.states.at(-1)).toEqual({
      kind: 'failed',
      reason: 'The session routes name no signaling and media ports.',
    });
    expect(h.ticket).not.toHaveBeenCalled();
    expect(h.fetch).not.toHaveBeenCalled();
  });

  it('fails after the last attempt, with a retry that connects again', async () => {
    const h = setup();
    h.fetch.mockImplementation(async () => new Response('busy', { status: 503 }));
    h.player.connect();
    await vi.advanceTimersByTimeAsync(1000 + 2000 + 4000);
    const kinds = h.states.map((s) => s.kind);
    expect(kinds.filter((k) => k === 'reconnecting')).toHaveLength(3);
    expect(h.states.at(-1)).toMatchObject({ kind: 'failed', reason: expect.stringContaining('503') });
    h.fetch.mockImplementation(async () => whepResponse(9));
    h.player.retry();
    await play(h);
    expect(h.states.at(-1)).toEqual({ kind: 'playing' });
  });

  it('disconnect() deletes the WHEP resource and stops reconnecting', async () => {
    const h = setup();
    h.player.connect();
    await play(h);
    const pc = lastPeer();
    h.player.disconnect();
    pc.setConnectionState('failed');
    await vi.advanceTimersByTimeAsync(60_000);
    const deletes = h.fetch.mock.calls.filter(([, init]) => init?.method === 'DELETE');
    expect(deletes.map(([url]) => url)).toEqual(['http://stream.example.org:49210/whep/r1']);
    expect(h.states.at(-1)).toEqual({ kind: 'disconnected' });
    expect(posts(h)).toHaveLength(1);
  });

  it('keeps playing when the signaling server goes away after connecting', async () => {
    const h = setup();
    h.player.connect();
    await play(h);
    h.fetch.mockRejectedValue(new TypeError('Failed to fetch'));
    await vi.advanceTimersByTimeAsync(30_000);
    expect(h.player.state).toEqual({ kind: 'playing' });
  });

  it('sends a fresh ticket with each attempt, and tries again when the service cannot give one', async () => {
    const h = setup();
    h.ticket.mockRejectedValueOnce(new Error('offline'));
    h.player.connect();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.states.at(-1)).toMatchObject({
      kind: 'reconnecting',
      attempt: 1,
      reason: expect.stringMatching(/offline/),
    });
    expect(h.fetch).not.toHaveBeenCalled();
    h.ticket.mockResolvedValueOnce('second-ticket');
    await vi.advanceTimersByTimeAsync(1000);
    await play(h);
    expect(h.player.state).toEqual({ kind: 'playing' });
    expect(h.ticket).toHaveBeenCalledTimes(2);
    expect(posts(h)[0]![1].headers).toMatchObject({ Authorization: 'Bearer second-ticket' });
  });

  it('asks for a stream of the element size once playing and the input channel is open', async () => {
    const h = setup({ resize: { maxWidth: 1920, maxHeight: 1080 } });
    Object.defineProperty(h.video, 'clientWidth', { value: 801 });
    Object.defineProperty(h.video, 'clientHeight', { value: 451 });
    h.player.connect();
    await play(h);
    const input = lastPeer().channel('input');
    expect(input.sent).toEqual([]);
    input.open();
    expect(input.sent.map((s) => JSON.parse(s))).toEqual([
      { type: 'resize', width: 802, height: 452, seq: 1 },
    ]);
  });

  it('samples stats every interval into a history', async () => {
    const h = setup({ statsIntervalMs: 1000 });
    const samples: unknown[] = [];
    h.player.addEventListener('stats', (s) => samples.push(s));
    h.player.connect();
    await play(h);
    lastPeer().stats.set('in', { type: 'inbound-rtp', kind: 'video', framesDecoded: 10, frameWidth: 640 });
    await vi.advanceTimersByTimeAsync(3000);
    expect(samples).toHaveLength(3);
    expect(h.player.statsHistory.at(-1)).toMatchObject({ framesDecoded: 10, width: 640 });
  });
});
