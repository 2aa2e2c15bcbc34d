import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeHealth } from './health-probe.ts';
import { useManagerHarness } from '../../test-support/manager-harness.ts';
import { sessionProcesses, standInRequest, waitFor } from '../../test-support/session-support.ts';
import type { SessionRecord } from './types.ts';

// This file's ports: 28140-28149.
const FIRST = 28140;
const LAST = 28149;

const { setup, track, ready, logged, dataDir, pids } = useManagerHarness(FIRST, LAST);

describe('session manager: failures and limits', () => {
  it('marks a session failed with the reason when its application exits, frees its GPU and starts the next', async () => {
    const m = await setup({ capacity: 1 });
    const doomed = await m.create(standInRequest(['--exit-after-ms', '300', '--exit-code', '1']));
    const next = await m.create(standInRequest());
    expect(m.get(next.id)?.message).toBe("Waiting for a free GPU: you're next");
    await waitFor('the failure', () => track(m.get(doomed.id))?.state === 'failed');
    const failed = m.get(doomed.id)!;
    expect(failed.message).toMatch(
      /^USD Viewer 1\.2\.0 exited with code 1( before it was ready)?; it said: stand-in: exiting with code 1 as asked$/,
    );
    expect(failed.failedAt).toBeDefined();
    expect(failed.ports).toBeUndefined();
    await ready(m, next.id);
    expect(m.counts()).toMatchObject({ ready: 1, failed: 1, queued: 0 });
  });

  it('fails a session whose application does not answer within its start-up timeout and stops that application', async () => {
    const m = await setup({ readyWaitMs: 15_000 });
    const created = track(await m.create(standInRequest(['--never-ready'], { startupTimeoutMs: 1_500 })))!;
    expect(created.state).toBe('failed');
    expect(created.message).toBe('USD Viewer 1.2.0 was not ready within 1.5 s');
    expect(created.ports).toBeUndefined();
    await waitFor('the application to be stopped', () => sessionProcesses(created.id).length === 0);
  });

  it('keeps a failed session visible for failedRetentionMs, then forgets it', async () => {
    const m = await setup({ failedRetentionMs: 2_000 });
    const created = await m.create(standInRequest(['--exit-after-ms', '0']));
    await waitFor('the failure', () => m.get(created.id)?.state === 'failed');
    expect(m.list(null, 0, 10).count).toBe(1);
    await waitFor('the failed session to be forgotten', () => m.get(created.id) === undefined);
    expect(m.counts().failed).toBe(0);
  });

  it('ends a session without viewers after idleTimeoutMs, and one older than maxLifetimeMs', async () => {
    const m = await setup({ capacity: 3 });
    const idle = await m.create(standInRequest([], { idleTimeoutMs: 300 }));
    const watched = await m.create(standInRequest(['--viewers', '1'], { idleTimeoutMs: 300 }));
    const old = await m.create(standInRequest(['--viewers', '1'], { maxLifetimeMs: 1_500 }));
    await ready(m, watched.id);
    await waitFor('the idle session to end', () => m.get(idle.id) === undefined);
    expect(logged()).toContain(`${idle.id} USD Viewer 1.2.0 had no viewer for a while; ending it`);
    expect(sessionProcesses(idle.id)).toEqual([]);
    await waitFor('the old session to end', () => m.get(old.id) === undefined);
    expect(logged()).toContain(`${old.id} USD Viewer 1.2.0 reached the end of its lifetime; ending it`);
    expect(sessionProcesses(old.id)).toEqual([]);
    // Many health checks later, the session with a viewer is still there.
    expect(m.get(watched.id)?.state).toBe('ready');
  });

  it('fails a session whose command cannot be started, without taking a GPU', async () => {
    const m = await setup({ capacity: 1 });
    const request = standInRequest();
    request.launch = { command: ['streamgate-no-such-program', '{session_id}'] };
    const created = await m.create(request);
    await waitFor('the failure', () => m.get(created.id)?.state === 'failed');
    expect(m.get(created.id)?.message).toBe('USD Viewer 1.2.0 could not be started');
    const next = await m.create(standInRequest());
    expect(next.message).toBe('Starting USD Viewer 1.2.0');
  });

  it("holds a user to their share of the GPUs while other users' sessions go ahead, admins aside", async () => {
    const m = await setup({ capacity: 2, queueLimit: 4, userGpuShare: 50 });
    const first = await m.create(standInRequest());
    const second = await m.create(standInRequest());
    const bobs = await m.create(standInRequest([], {}, 'bob'));
    expect(m.get(second.id)?.message).toBe(
      'Waiting: you already use your share of the GPUs (1 of 2); this session starts when one of yours ends',
    );
    // Bob's went ahead of Alice's second one.
    expect(m.get(bobs.id)?.message).not.toMatch(/^Waiting/);
    await ready(m, first.id);
    await ready(m, bobs.id);
    // An admin is not held to a share, only to the GPUs: it waits its turn behind Alice's second session.
    const admins = await m.create({ ...standInRequest([], {}, 'ada'), admin: true });
    expect(m.get(admins.id)?.message).toBe('Waiting for a free GPU: 1 session ahead');
    await m.end(first.id);
    await ready(m, second.id);
    expect(m.get(admins.id)?.state).toBe('pending');
    await m.end(bobs.id);
    await ready(m, admins.id);
  });

  it('stops the sharing: a ready application is told at once, a queued one once ready, and a deaf one is a 503', async () => {
    const m = await setup({ capacity: 2, queueLimit: 2 });
    const stops = async (record: SessionRecord) => {
      const health = await fetch(`http://127.0.0.1:${record.ports!.signaling}/health`);
      return ((await health.json()) as { sharingStops: number }).sharingStops;
    };
    const deaf = await m.create(standInRequest(['--refuse-sharing-stop']));
    const told = await m.create(standInRequest());
    const queued = await m.create(standInRequest());
    expect(await m.stopSharing(queued.id)).toEqual({ watchersDropped: 0 });
    const running = await ready(m, told.id);
    expect(await m.stopSharing(told.id)).toEqual({ watchersDropped: 0 });
    expect(await stops(running)).toBe(1);
    await ready(m, deaf.id);
    await expect(m.stopSharing(deaf.id)).rejects.toMatchObject({
      statusCode: 503,
      message: 'USD Viewer 1.2.0 did not answer the stop of sharing; try again in a moment.',
    });
    await m.end(told.id);
    const later = await ready(m, queued.id);
    await waitFor('the queued session to be told', async () => (await stops(later)) === 1);
    expect(await m.stopSharing(crypto.randomUUID())).toBeUndefined();
  });

  it('starts an application again on other ports when another program took one of its ports first', async () => {
    const m = await setup({ readyWaitMs: 15_000 });
    const marker = path.join(dataDir(), 'port-holder.pid');
    const created = track(await m.create(standInRequest(['--port-taken-once', marker])))!;
    const holder = Number(await readFile(marker, 'utf8'));
    pids.add(holder);
    expect(created.state).toBe('ready');
    expect(logged()).toContain(
      `${created.id} Another program took a port of USD Viewer 1.2.0 before it could bind it; starting it again on other ports`,
    );
    // The port the holder took is not the session's now.
    const held = readFileSync(`/proc/${holder}/cmdline`, 'utf8').split('\0')[3];
    expect(Number(held)).toBeGreaterThanOrEqual(FIRST);
    expect(created.ports?.signaling).not.toBe(Number(held));
    expect(await probeHealth('127.0.0.1', created.ports!.signaling)).toMatchObject({ ok: true });
  });
});
