import { createSocket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { H264_ENCODER_ENV } from '../../protocol/h264-encoder.ts';
import { READY_FD_ENV } from '../../protocol/ready-line.ts';
import { isAlive } from '../runners/process-group.ts';
import { probeHealth } from './health-probe.ts';
import { canBind } from '../runners/port-pool.ts';
import { useManagerHarness } from '../../test-support/manager-harness.ts';
import {
  environmentOf,
  freeBlock,
  sessionProcesses,
  standInRequest,
  testManager,
  testOptions,
  waitFor,
} from '../../test-support/session-support.ts';
import { QueueFullError } from './types.ts';

// This file's ports: 28000-28049.
const FIRST = 28000;
const LAST = 28049;

const { setup, track, ready, pids } = useManagerHarness(FIRST, LAST);

describe('session manager', () => {
  it('starts a session, reports it ready with its ports, and ends it leaving no process', async () => {
    const m = await setup({ readyWaitMs: 15_000 });
    const created = track(await m.create(standInRequest(['--spawn-child'])))!;
    expect(created.state).toBe('ready');
    expect(created.message).toBe('USD Viewer 1.2.0 is ready');
    expect(created.ports?.signaling).toBeGreaterThanOrEqual(FIRST);
    expect(created.ports?.media).not.toBe(created.ports?.signaling);
    const health = await probeHealth('127.0.0.1', created.ports!.signaling);
    expect(health.ok).toBe(true);
    const response = await fetch(`http://127.0.0.1:${created.ports!.signaling}/health`);
    const { childPid } = (await response.json()) as { childPid: number };
    pids.add(childPid);
    expect(isAlive(childPid)).toBe(true);

    await m.end(created.id);
    expect(m.get(created.id)).toBeUndefined();
    expect(isAlive(created.pid!)).toBe(false);
    // The whole process group is stopped, not only its leader.
    expect(isAlive(childPid)).toBe(false);
    expect(m.counts()).toEqual({ pending: 0, ready: 0, failed: 0, queued: 0, warm: 0 });
  });

  it('learns that the sample application is ready from its ready line, without waiting for its next poll', async () => {
    // One probe before the application listens, then one a minute: only the ready line makes it ready sooner.
    const m = await setup({ readyWaitMs: 20_000, readyPollMs: 60_000 });
    const { launch: _, ...sample } = standInRequest();
    const began = Date.now();
    const created = track(await m.create(sample))!;
    expect(created.state).toBe('ready');
    expect(Date.now() - began).toBeLessThan(20_000);
    // The service named the pipe to it.
    expect((await environmentOf(created.pid!))[READY_FD_ENV]).toBe('3');
    await m.end(created.id);
  });

  it('learns that a display program is ready from the ready line of its host, once the program shows a window', async () => {
    const m = await setup({ readyWaitMs: 20_000, readyPollMs: 60_000 });
    const terminal = { ...standInRequest(), launch: { display: { command: ['xterm'] } } };
    const created = track(await m.create(terminal))!;
    expect(created.state).toBe('ready');
    await m.end(created.id);
  });

  it('runs at most `capacity` sessions, queues the rest first in first out, and refuses past the queue limit', async () => {
    const m = await setup({ capacity: 1, queueLimit: 2 });
    // Held back a second, so that it is still starting when the messages are read: a warm machine brought the
    // stand-in up within this test's first 120 ms once (a fresh-clone run of 2026-11-29).
    const first = await m.create(standInRequest(['--ready-after-ms', '1000']));
    const second = await m.create(standInRequest());
    const third = await m.create(standInRequest());
    await expect(m.create(standInRequest())).rejects.toBeInstanceOf(QueueFullError);
    expect(m.get(first.id)?.message).toBe('Starting USD Viewer 1.2.0');
    expect(m.get(second.id)?.message).toBe("Waiting for a free GPU: you're next");
    expect(m.get(third.id)?.message).toBe('Waiting for a free GPU: 1 session ahead');
    // A list gives each queued session its own place, as get() does.
    expect(m.list(null, 0, 10).items.map((record) => record.message)).toEqual([
      'Starting USD Viewer 1.2.0',
      "Waiting for a free GPU: you're next",
      'Waiting for a free GPU: 1 session ahead',
    ]);
    expect(m.list(null, 2, 10).items.map((record) => record.message)).toEqual([
      'Waiting for a free GPU: 1 session ahead',
    ]);
    expect(m.counts()).toMatchObject({ pending: 3, queued: 2 });

    await ready(m, first.id);
    expect(m.get(second.id)?.state).toBe('pending');
    await m.end(first.id);
    await ready(m, second.id);
    expect(m.get(third.id)?.message).toBe("Waiting for a free GPU: you're next");
    // Ending a queued session takes it out of the queue.
    await m.end(third.id);
    expect(m.get(third.id)).toBeUndefined();
    expect(m.counts()).toMatchObject({ ready: 1, queued: 0, pending: 0 });
  });

  it('answers pending when the application is slower than readyWaitMs', async () => {
    const m = await setup({ readyWaitMs: 100 });
    const created = track(await m.create(standInRequest(['--ready-after-ms', '1500'])))!;
    expect(created.state).toBe('pending');
    expect(created.message).toBe('Starting USD Viewer 1.2.0');
    await ready(m, created.id);
  });

  it('escalates to SIGKILL when the application ignores SIGTERM', async () => {
    const m = await setup({ readyWaitMs: 15_000, stopGraceMs: 300 });
    const created = track(await m.create(standInRequest(['--ignore-sigterm'])))!;
    expect(created.state).toBe('ready');
    await m.end(created.id);
    expect(isAlive(created.pid!)).toBe(false);
  });

  it('never gives one port to two sessions, skips ports held by others, and frees every port', async () => {
    // Six ports with the first held (TCP and UDP) by another program: room for two sessions and one
    // port to spare (the range lies among the system's ephemeral ports, where a passing connection may
    // hold one for a moment).
    // A block free right now: an application of an earlier test may still be letting go of its ports.
    const first = await freeBlock(FIRST, LAST, 6);
    const squatter: Server = createServer();
    await new Promise<void>((resolve) => squatter.listen(first, '127.0.0.1', resolve));
    const udpSquatter = createSocket('udp4');
    await new Promise<void>((resolve) => udpSquatter.bind(first, '127.0.0.1', resolve));
    try {
      const m = await setup({
        capacity: 3,
        queueLimit: 0,
        readyWaitMs: 15_000,
        portRange: { first, last: first + 5 },
      });
      const a = track(await m.create(standInRequest()))!;
      const b = track(await m.create(standInRequest()))!;
      const c = track(await m.create(standInRequest()))!;
      expect([a.state, b.state]).toEqual(['ready', 'ready']);
      const used = [a, b].flatMap((r) => [r.ports!.signaling, r.ports!.media]);
      expect(new Set(used).size).toBe(4);
      expect(used).not.toContain(first);
      expect(c.state).toBe('failed');
      expect(c.message).toMatch(/^No free network port/);

      await m.end(a.id);
      await m.end(b.id);
      await waitFor('every port to be free again', async () => {
        for (const port of used) {
          if (!(await canBind(port, 'tcp')) || !(await canBind(port, 'udp'))) return false;
        }
        return true;
      });
      // Freed in the pool as well: new sessions get ports again.
      const d = track(await m.create(standInRequest()))!;
      const e = track(await m.create(standInRequest()))!;
      expect([d.state, e.state]).toEqual(['ready', 'ready']);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
      await new Promise<void>((resolve) => udpSquatter.close(resolve));
    }
  });

  it('lists sessions by owner, oldest first, with offset and limit', async () => {
    const m = await setup({ capacity: 1, queueLimit: 5 });
    const a1 = await m.create(standInRequest([], {}, 'alice'));
    const b1 = await m.create(standInRequest([], {}, 'bob'));
    const a2 = await m.create(standInRequest([], {}, 'alice'));
    expect(m.list('alice', 0, 10).items.map((r) => r.id)).toEqual([a1.id, a2.id]);
    expect(m.list(null, 1, 1)).toMatchObject({ count: 3, items: [{ id: b1.id }] });
    await m.end(b1.id);
    expect(m.get(a2.id)?.message).toBe("Waiting for a free GPU: you're next");
  });

  it('stop() ends every session, queued ones included, and leaves no process behind', async () => {
    const m = await setup({ capacity: 2, queueLimit: 2 });
    const a = await ready(m, (await m.create(standInRequest(['--spawn-child']))).id);
    const b = await ready(m, (await m.create(standInRequest(['--ignore-sigterm']))).id);
    const queued = await m.create(standInRequest());
    const { childPid } = (await (await fetch(`http://127.0.0.1:${a.ports!.signaling}/health`)).json()) as {
      childPid: number;
    };
    pids.add(childPid);
    await m.stop();
    for (const pid of [a.pid!, b.pid!, childPid]) expect(isAlive(pid)).toBe(false);
    expect(sessionProcesses(a.id)).toEqual([]);
    expect(m.get(queued.id)).toBeUndefined();
    expect(m.counts()).toEqual({ pending: 0, ready: 0, failed: 0, queued: 0, warm: 0 });
  });

  it('refuses settings that cannot work', () => {
    expect(() => testManager({ ...testOptions('unused', FIRST, LAST), capacity: 0 })).toThrow(/Capacity/);
    expect(() => testManager({ ...testOptions('unused', FIRST, LAST), queueLimit: -1 })).toThrow(/queue/);
  });

  it('ends a session that is still starting, once however often it is asked', async () => {
    const m = await setup({ capacity: 1 });
    const starting = await m.create(standInRequest(['--ready-after-ms', '60000']));
    // Held back a second once it starts, so that its message is read while it is still starting.
    const queued = await m.create(standInRequest(['--ready-after-ms', '1000']));
    await waitFor('the application to run', () => sessionProcesses(starting.id).length > 0);
    await Promise.all([m.end(starting.id), m.end(starting.id)]);
    expect(m.get(starting.id)).toBeUndefined();
    expect(sessionProcesses(starting.id)).toEqual([]);
    // Its GPU goes to the next in line.
    expect(m.get(queued.id)?.message).toBe('Starting USD Viewer 1.2.0');
    await m.end(queued.id);

    // Ended at once, while its ports or its process were still being set up.
    const hasty = await m.create(standInRequest());
    expect(hasty.message).toBe('Starting USD Viewer 1.2.0');
    await m.end(hasty.id);
    expect(m.get(hasty.id)).toBeUndefined();
    expect(sessionProcesses(hasty.id)).toEqual([]);
    expect(m.counts()).toEqual({ pending: 0, ready: 0, failed: 0, queued: 0, warm: 0 });
  });

  it("tells H.264 applications the machine's encoder, found once for the service; VP8 ones need none", async () => {
    const probeH264 = vi.fn(async () => ({ encoder: 'h264_nvenc' as const, reason: 'H.264 on a test GPU' }));
    const m = await setup({ capacity: 3, readyWaitMs: 15_000, probeH264 });
    const vp8 = track(await m.create(standInRequest()))!;
    expect(probeH264).not.toHaveBeenCalled();
    const h264 = [];
    for (let i = 0; i < 2; i++) h264.push(track(await m.create(standInRequest([], { codec: 'h264' })))!);
    expect(probeH264).toHaveBeenCalledOnce();
    for (const session of h264) {
      expect((await environmentOf(session.pid!))[H264_ENCODER_ENV]).toBe('h264_nvenc');
    }
    expect((await environmentOf(vp8.pid!))[H264_ENCODER_ENV]).toBeUndefined();
  });
});
