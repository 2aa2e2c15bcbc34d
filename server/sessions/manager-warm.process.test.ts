/**
 * Warm applications (CONTRACT §16): kept started and ready for nobody, handed at once to a request that
 * matches, replaced in the background, counted against capacity, given up for queued sessions, and
 * taken over after a crash of the service.
 */
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../runners/local-spawn.ts';
import { isAlive } from '../runners/process-group.ts';
import type { WarmTarget } from '../catalog/queries.ts';
import type { PersistedSession } from './saved-session.ts';
import { useManagerHarness } from '../../test-support/manager-harness.ts';
import { standInRequest, tempDataDir, testOptions, waitFor } from '../../test-support/session-support.ts';
import type { SessionManager } from './types.ts';
import type { SessionRequest } from '../runners/runner.ts';

// This file's ports: 28420-28439.
const FIRST = 28420;
const LAST = 28439;

const { setup, track, ready, logged, dataDir: harnessDir, pids } = useManagerHarness(FIRST, LAST);

/** What a person asks for when they launch the warm profile: no arguments. */
function plainRequest(flags: string[] = [], owner = 'alice'): SessionRequest {
  return { ...standInRequest(flags, {}, owner), arguments: {} };
}

function warmOf(request: SessionRequest, count = 1): WarmTarget {
  const { owner: _owner, arguments: _arguments, ...target } = request;
  return { target, count };
}

/** Warm applications held, and how many of them are ready, from the state the manager saves. */
async function savedWarm(dataDir: string): Promise<PersistedSession[]> {
  const text = await readFile(path.join(dataDir, 'sessions.json'), 'utf8').catch(() => '{"sessions":[]}');
  const { sessions } = JSON.parse(text) as { sessions: PersistedSession[] };
  return sessions.filter((s) => s.warm);
}

async function warmReady(m: SessionManager, count: number): Promise<void> {
  await waitFor(`${count} warm application(s)`, () => m.capacity().warm === count);
  // Held is not ready: a claim of a starting one would still wait. Claiming is tested on ready ones.
  await waitFor(
    'them to be ready',
    () => logged().filter((line) => line.includes('is ready')).length >= count,
  );
}

describe('session manager: warm applications', () => {
  it('keeps one warm, hidden from the API, and hands it over at once; a new one starts in the background', async () => {
    const m = await setup({ capacity: 2, warm: [warmOf(plainRequest())] });
    await warmReady(m, 1);
    expect(m.list(null, 0, 10).count).toBe(0);
    expect(m.counts()).toMatchObject({ pending: 0, ready: 0, warm: 1 });
    expect(m.activeCount('alice')).toBe(0);

    const claimed = track(await m.create(plainRequest()))!;
    // readyWaitMs is 0 here: only a warm application can be ready in the answer itself.
    expect(claimed).toMatchObject({ state: 'ready', owner: 'alice', arguments: {} });
    expect(claimed.ports).toBeDefined();
    expect(logged()).toContain(`${claimed.id} Handed a warm USD Viewer 1.2.0 to its session`);
    expect(m.activeCount('alice')).toBe(1);
    expect(m.list('alice', 0, 10).items.map((r) => r.id)).toEqual([claimed.id]);
    expect((await m.issueTicket(claimed.id, 'control'))?.ticket).toBeTruthy();

    await waitFor('a warm replacement', () => m.capacity().warm === 1);
    expect(m.capacity()).toMatchObject({ capacity: 2, running: 1, warm: 1, queued: 0 });
    await waitFor('the claim on disk', async () => {
      const warm = await savedWarm(harnessDir());
      return warm.length === 1 && warm[0]?.record.id !== claimed.id;
    });
  });

  it('starts a request with arguments cold: a warm application was started without them', async () => {
    const m = await setup({ capacity: 2, warm: [warmOf(plainRequest())] });
    await warmReady(m, 1);
    const cold = track(await m.create(standInRequest()))!;
    // Started for it, not handed over. (Not "pending" in the answer: the answer waits for the state file, and a
    // stand-in started meanwhile may be ready by then on a busy disk, as once in CI.)
    expect(logged()).not.toContain(`${cold.id} Handed a warm USD Viewer 1.2.0 to its session`);
    expect(m.capacity()).toMatchObject({ running: 1, warm: 1 });
    await ready(m, cold.id);
  });

  it("is started with its version's declared defaults, and handed to a request filled with the same", async () => {
    const defaults = { model: 'torus-knot.obj' };
    const m = await setup({ capacity: 2, warm: [{ ...warmOf(plainRequest()), arguments: defaults }] });
    await warmReady(m, 1);
    // Another model starts cold; the defaults (what POST /stream fills in when none is given) take the warm one.
    const other = track(await m.create({ ...plainRequest(), arguments: { model: 'icosphere.obj' } }))!;
    expect(logged()).not.toContain(`${other.id} Handed a warm USD Viewer 1.2.0 to its session`);
    const claimed = track(await m.create({ ...plainRequest(), arguments: { ...defaults } }))!;
    expect(claimed).toMatchObject({ state: 'ready', arguments: defaults });
    await ready(m, other.id);
  });

  it('gives its GPU to a launch that needs it, which starts at once, and is filled again once a GPU is free', async () => {
    const m = await setup({ capacity: 1, warm: [warmOf(plainRequest())] });
    await warmReady(m, 1);
    const other = { ...standInRequest(), app: { id: 'usd-composer', name: 'USD Composer' } };
    const queued = track(await m.create(other))!;
    // Not "Waiting for a free GPU" while the warm application exits: it let go of its GPU when it was told to.
    expect(queued).toMatchObject({ state: 'pending', message: 'Starting USD Composer 1.2.0' });
    expect(m.capacity()).toMatchObject({ running: 1, warm: 0, queued: 0 });
    await ready(m, queued.id);
    expect(m.capacity()).toMatchObject({ running: 1, warm: 0, queued: 0 });
    await m.end(queued.id);
    await waitFor('the warm application again', () => m.capacity().warm === 1);
  });

  it('reports capacity per profile: target, warm, running and queued', async () => {
    const fast = plainRequest();
    const m = await setup({ capacity: 1, queueLimit: 4, warm: [warmOf(fast, 2)] });
    await waitFor('one warm application (the only GPU)', () => m.capacity().warm === 1);
    expect(m.capacity().by_profile).toEqual([
      { profile: 'default', running: 0, queued: 0, warm: 1, warm_target: 2 },
    ]);
  });

  it('waits longer after each failure of a warm application, and shows none of them', async () => {
    const m = await setup({ warm: [warmOf(plainRequest(['--exit-after-ms', '0', '--exit-code', '1']))] });
    await waitFor('a failure', () => logged().some((line) => line.includes('exited with code 1')));
    // The next try waits 2 s, then 4 s: within 1.5 s there is no second one.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(logged().filter((line) => line.includes('exited with code 1'))).toHaveLength(1);
    expect(m.list(null, 0, 10).count).toBe(0);
    expect(m.counts()).toMatchObject({ failed: 0, warm: 0 });
  });

  it('takes a warm application over after a crash of the service, and hands it out', async () => {
    const dataDir = await tempDataDir();
    const options = { ...testOptions(dataDir, FIRST, LAST), warm: [warmOf(plainRequest())] };
    const host = spawn(
      process.execPath,
      ['--import', 'tsx', 'test-support/crash-host.ts', JSON.stringify(options), '[]', '0'],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    pids.add(host.pid);
    let saved: PersistedSession[] = [];
    await waitFor('a warm application ready on disk', async () => {
      saved = await savedWarm(dataDir);
      return saved.some((s) => s.record.state === 'ready');
    });
    const before = saved[0]!.record;
    pids.add(before.pid);
    host.kill('SIGKILL');
    await new Promise((resolve) => host.once('exit', resolve));
    expect(isAlive(before.pid!)).toBe(true);

    const m = await setup({ ...options, dataDir });
    expect(m.capacity().warm).toBe(1);
    const claimed = track(await m.create(plainRequest()))!;
    expect(claimed).toMatchObject({ id: before.id, pid: before.pid, state: 'ready', owner: 'alice' });
    await rm(dataDir, { recursive: true, force: true });
  });
});
