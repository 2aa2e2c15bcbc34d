/**
 * A session's whole life against a runner and an application made of promises: no process, no port, no
 * network; fake timers for every wait.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NEXT_PHASES, Session, type Phase, type SessionEvent, type SessionServices } from './session.ts';
import type { Health } from './health-probe.ts';
import type { Placement, RunObserver, Runner, RunSpec } from '../runners/runner.ts';
import { standInRequest, testSettings } from '../../test-support/session-support.ts';
import type { ProfileSettings } from '../catalog/model.ts';

/** A runner that records what it is asked and lets the test play the application. */
class FakeRunner implements Runner {
  observer: RunObserver | undefined;
  spec: RunSpec | undefined;
  stops: (number | undefined)[] = [];
  running = true;
  failStart: string | undefined;
  /** What `extend` was asked (lifetimes in ms), and why it refuses, when it does. */
  extended: number[] = [];
  refuseExtend: string | undefined;
  open = async () => {};
  sweep = async () => {};
  refuses = () => undefined;
  async start(spec: RunSpec, observer: RunObserver): Promise<void> {
    if (this.failStart) throw new Error(this.failStart);
    this.spec = spec;
    this.observer = observer;
  }
  async stop(_id: string, handle: { pid?: number } | undefined): Promise<void> {
    this.stops.push(handle?.pid);
  }
  async extend(_id: string, _handle: unknown, lifetimeMs: number): Promise<void> {
    if (this.refuseExtend) throw new Error(this.refuseExtend);
    this.extended.push(lifetimeMs);
  }
  isRunning = () => this.running;
  recover = () => ({ kind: 'absent' as const });
  slots = () => 1;
  connectSources = async () => [];
  close = async () => {};
  place(signaling: number, pid = 100, announced: Promise<void> = new Promise(() => {})): void {
    const placement: Placement = {
      host: '10.0.0.7',
      ports: { signaling, media: signaling + 1 },
      handle: { pid },
    };
    this.observer?.placed(placement, announced);
  }
}

let runner: FakeRunner;
let answers: Map<number, Health>;
let asked: { host: string; port: number; ticket?: string }[];
let events: SessionEvent['type'][];

function services(): SessionServices {
  return {
    runner,
    tickets: () =>
      ({
        secretOf: () => new Uint8Array(32),
        issue: async () => ({ ticket: 'watch-ticket', expiresAt: '' }),
      }) as unknown as ReturnType<SessionServices['tickets']>,
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    publicHost: '127.0.0.1',
    viewerOrigins: ['https://portal.example'],
    probe: async (host, port, ticket) => {
      asked.push({ host, port, ticket });
      return answers.get(port) ?? { ok: false };
    },
    readyPollMs: 20,
    failedRetentionMs: 60_000,
  };
}

function session(settings: Partial<ProfileSettings> = {}): Session {
  return Session.create(standInRequest([], settings), 1, services(), (_s, event) => events.push(event.type));
}

/** Lets promise callbacks run, and fake time pass. */
async function pass(ms = 0): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

beforeEach(() => {
  vi.useFakeTimers();
  runner = new FakeRunner();
  answers = new Map();
  asked = [];
  events = [];
});
afterEach(() => vi.useRealTimers());

describe('a session', () => {
  it('launches through its runner, asks where it was placed, and is ready on the first good answer', async () => {
    const s = session({ filesMb: 2048 });
    await s.launch();
    expect(s.phase).toBe('starting');
    expect(runner.spec?.environment).toMatchObject({
      STREAMGATE_ALLOWED_ORIGINS: 'https://portal.example',
      // The size of its folder of files, from its profile.
      STREAMGATE_FILES_MB: '2048',
    });
    runner.place(5000);
    await pass(100);
    expect(s.phase).toBe('starting');
    expect(asked.at(-1)).toEqual({ host: '10.0.0.7', port: 5000, ticket: undefined });
    answers.set(5000, { ok: true });
    await pass(20);
    expect(s.phase).toBe('ready');
    expect(s.toRecord([])).toMatchObject({
      state: 'ready',
      ports: { signaling: 5000, media: 5001 },
      pid: 100,
    });
    expect(events).toEqual(['starting', 'launched', 'ready']);
  });

  it('tells its runner it still starts only until it is ready, so that a ready one is never started again', async () => {
    const s = session();
    await s.launch();
    runner.place(5000);
    expect(runner.observer?.starting()).toBe(true);
    answers.set(5000, { ok: true });
    await pass(20);
    expect(s.phase).toBe('ready');
    expect(runner.observer?.starting()).toBe(false);
  });

  it('asks again at once when the application announces that it listens', async () => {
    const s = session();
    await s.launch();
    let announce!: () => void;
    runner.place(5000, 100, new Promise<void>((resolve) => (announce = resolve)));
    await pass(0);
    const before = asked.length;
    answers.set(5000, { ok: true });
    announce();
    await pass(0);
    expect(asked.length).toBe(before + 1);
    expect(s.phase).toBe('ready');
  });

  it('fails in the runner’s words when its application cannot be started, and has nothing left to stop', async () => {
    runner.failStart = 'No free network port for USD Viewer 1.2.0; try again when a session ends';
    const s = session();
    await s.launch();
    expect(s.phase).toBe('failed');
    expect(s.record.message).toBe(runner.failStart);
    expect(runner.stops).toEqual([undefined]);
  });

  it('fails with the last words of an application that exits before it is ready, and stops what it left', async () => {
    const s = session();
    await s.launch();
    runner.place(5000, 321);
    runner.observer?.exited({ code: 3, signal: null, lastWords: 'no GPU' });
    expect(s.phase).toBe('failed');
    expect(s.record.message).toBe('USD Viewer 1.2.0 exited with code 3 before it was ready; it said: no GPU');
    expect(runner.stops).toEqual([321]);
  });

  it('fails when its start-up time is over, and stops asking', async () => {
    const s = session({ startupTimeoutMs: 1_000 });
    await s.launch();
    runner.place(5000);
    await pass(1_100);
    expect(s.phase).toBe('failed');
    expect(s.record.message).toBe('USD Viewer 1.2.0 was not ready within 1 s');
    const count = asked.length;
    await pass(1_000);
    expect(asked.length).toBe(count);
  });

  it('follows a new placement: the old ports are not asked any more', async () => {
    const s = session();
    await s.launch();
    runner.place(5000);
    await pass(40);
    runner.place(6000, 101);
    asked = [];
    await pass(100);
    expect(new Set(asked.map((a) => a.port))).toEqual(new Set([6000]));
    answers.set(6000, { ok: true });
    await pass(20);
    expect(s.toRecord([])).toMatchObject({ state: 'ready', pid: 101 });
  });

  it('ends when the person quits its program (exit 0), and stops its application before it is gone', async () => {
    answers.set(5000, { ok: true });
    const s = session();
    await s.launch();
    runner.place(5000, 77);
    await pass(0);
    expect(s.phase).toBe('ready');
    runner.observer?.exited({ code: 0, signal: null, lastWords: '' });
    await pass(0);
    expect(s.phase).toBe('gone');
    expect(runner.stops).toEqual([77]);
    expect(events.slice(-2)).toEqual(['ending', 'gone']);
  });

  it('ended while its runner is still starting it, stops what the runner placed', async () => {
    let place!: () => void;
    runner.start = async (spec, observer) => {
      runner.observer = observer;
      await new Promise<void>((resolve) => (place = resolve));
      runner.place(5000, 55);
    };
    const s = session();
    const launching = s.launch();
    const ending = s.end();
    expect(s.phase).toBe('ending');
    place();
    await launching;
    await ending;
    expect(s.phase).toBe('gone');
    expect(runner.stops).toEqual([55]);
  });

  it('ends after its idle time without a viewer, asked with a watch ticket; a viewer resets the count', async () => {
    answers.set(5000, { ok: true, viewers: 0 });
    const s = session({ idleTimeoutMs: 10_000 });
    await s.launch();
    runner.place(5000);
    await pass(0);
    await s.check();
    expect(asked.at(-1)?.ticket).toBe('watch-ticket');
    await pass(6_000);
    answers.set(5000, { ok: true, viewers: 1 });
    await s.check();
    answers.set(5000, { ok: true, viewers: 0 });
    await s.check();
    await pass(6_000);
    await s.check();
    expect(s.phase).toBe('ready');
    await pass(4_000);
    await s.check();
    expect(s.phase).toBe('gone');
  });

  it('fails when a ready application stops answering for its start-up time', async () => {
    answers.set(5000, { ok: true });
    const s = session({ startupTimeoutMs: 5_000 });
    await s.launch();
    runner.place(5000);
    await pass(0);
    answers.set(5000, { ok: false });
    await s.check();
    await pass(4_000);
    await s.check();
    expect(s.phase).toBe('ready');
    await pass(1_000);
    await s.check();
    expect(s.phase).toBe('failed');
    expect(s.record.message).toBe('USD Viewer 1.2.0 stopped answering');
  });

  it('ends at its maximum lifetime', async () => {
    answers.set(5000, { ok: true });
    const s = session({ maxLifetimeMs: 60_000 });
    await s.launch();
    runner.place(5000);
    await pass(60_000);
    await s.check();
    expect(s.phase).toBe('gone');
  });

  it('is forgotten once its retention after a failure is over', async () => {
    const s = session();
    await s.launch();
    s.fail('broken');
    await pass(59_000);
    expect(s.phase).toBe('failed');
    await pass(1_000);
    expect(s.phase).toBe('gone');
  });

  it('adopted while starting, is asked at once and ready when its application answers', async () => {
    answers.set(5000, { ok: true });
    const s = session();
    s.record.ports = { signaling: 5000, media: 5001 };
    await s.resume({ pid: 9 });
    expect(s.phase).toBe('ready');
    expect(asked).toHaveLength(1);
  });

  it('adopted, fails when its application no longer runs', async () => {
    const s = session();
    s.record.state = 'ready';
    s.record.ports = { signaling: 5000, media: 5001 };
    await s.resume({ pid: 9 });
    runner.running = false;
    await s.check();
    expect(s.phase).toBe('failed');
    expect(s.record.message).toBe('USD Viewer 1.2.0 exited');
  });
});

describe('its lifetime', () => {
  const MIN = 60_000;
  /** A ready session of a profile whose sessions run 30 minutes and may be extended up to 60. */
  async function ready(): Promise<Session> {
    answers.set(5000, { ok: true });
    const s = session({ lifetimeMs: 30 * MIN, maxLifetimeMs: 60 * MIN });
    await s.launch();
    runner.place(5000);
    await pass(20);
    expect(s.phase).toBe('ready');
    return s;
  }

  it('ends at its initial lifetime unless extended; an extension moves its end, and is saved', async () => {
    const s = await ready();
    const started = s.startedAt!;
    expect(s.toRecord([]).endsAt).toBe(new Date(started + 30 * MIN).toISOString());
    expect(s.toRecord([]).latestEndAt).toBe(new Date(started + 60 * MIN).toISOString());
    await pass(29 * MIN);
    expect(await s.extend(20)).toEqual({ endsAt: started + 50 * MIN, latestEndAt: started + 60 * MIN });
    expect(runner.extended).toEqual([50 * MIN]);
    expect(events.at(-1)).toBe('extended');
    expect(s.persisted().extendedMs).toBe(20 * MIN);
    await pass(2 * MIN);
    await s.check();
    expect(s.phase).toBe('ready');
    await pass(20 * MIN);
    await s.check();
    expect(s.phase).toBe('gone');
  });

  it('is cut at its maximum lifetime, then refused in words; a restored one keeps its extension', async () => {
    const s = await ready();
    const started = s.startedAt!;
    expect(await s.extend(600)).toMatchObject({ endsAt: started + 60 * MIN });
    expect(await s.extend(1)).toEqual({
      refused: "The session already runs to its profile's maximum lifetime of 1 h; it cannot be extended.",
    });
    expect(runner.extended).toEqual([60 * MIN]);
    const revived = Session.revive(structuredClone(s.persisted()), services(), () => {});
    expect(revived.lifetime).toEqual({ endsAt: started + 60 * MIN, latestEndAt: started + 60 * MIN });
  });

  it('is not extended while it starts, nor when its runner refuses (409 in its words)', async () => {
    const s = session({ lifetimeMs: 30 * MIN, maxLifetimeMs: 60 * MIN });
    await s.launch();
    await expect(s.extend(10)).rejects.toMatchObject({ statusCode: 409 });
    runner.place(5000);
    answers.set(5000, { ok: true });
    await pass(20);
    runner.refuseExtend = "This cluster does not let the session's job run longer.";
    await expect(s.extend(10)).rejects.toMatchObject({
      statusCode: 409,
      detail: "This cluster does not let the session's job run longer.",
    });
    expect(s.lifetime?.endsAt).toBe(s.startedAt! + 30 * MIN);
    expect(events).not.toContain('extended');
  });

  it('says when it ends for having no viewer, while none is connected', async () => {
    const s = await ready();
    expect(s.toRecord([]).idleEndsAt).toBeUndefined();
    answers.set(5000, { ok: true, viewers: 0 });
    await s.check();
    // Idle time counts from when it became ready, when a viewer could first come.
    const readyAt = Date.parse(s.record.readyAt ?? '');
    expect(s.toRecord([]).idleEndsAt).toBe(new Date(readyAt + testSettings.idleTimeoutMs).toISOString());
    answers.set(5000, { ok: true, viewers: 1 });
    await s.check();
    expect(s.toRecord([]).idleEndsAt).toBeUndefined();
  });
});

describe('its phases', () => {
  /** The table's steps, as "from → to". */
  const legal = new Set(
    Object.entries(NEXT_PHASES).flatMap(([from, nexts]) => nexts.map((next) => `${from} → ${next}`)),
  );
  const PHASES = Object.keys(NEXT_PHASES) as Phase[];
  /** `to` is private: the tests reach it as the session itself does. */
  const step = (s: Session, next: Phase) => (s as unknown as { to(next: Phase): void }).to(next);
  afterEach(() => vi.restoreAllMocks());

  /** A session in `phase`, reached the way a service reaches it. */
  async function sessionIn(phase: Phase): Promise<Session> {
    answers.set(5000, { ok: true });
    const s = session();
    if (phase === 'queued') return s;
    if (phase === 'gone') {
      await s.end();
      return s;
    }
    await s.launch();
    if (phase === 'failed') s.fail('broken');
    if (phase === 'starting' || phase === 'failed') return s;
    runner.place(5000);
    await pass(0);
    // Its runner's stop is awaited: until then it is ending.
    if (phase === 'ending') void s.end();
    return s;
  }

  it('refuses every step that the table does not hold, and stays where it was', async () => {
    for (const from of PHASES) {
      for (const next of PHASES) {
        if (legal.has(`${from} → ${next}`)) continue;
        const s = await sessionIn(from);
        expect(s.phase).toBe(from);
        expect(() => step(s, next)).toThrow(`A session cannot go from ${from} to ${next}`);
        expect(s.phase).toBe(from);
      }
    }
  });

  it('takes every step of the table in the lives a service gives it, and no other', async () => {
    const taken = new Set<string>();
    const to = Reflect.get(Session.prototype, 'to') as (this: Session, next: Phase) => void;
    vi.spyOn(Session.prototype as unknown as { to(next: Phase): void }, 'to').mockImplementation(function (
      this: Session,
      next: Phase,
    ) {
      taken.add(`${this.phase} → ${next}`);
      to.call(this, next);
    });
    answers.set(5000, { ok: true });
    // Launched, ready, ended: its application stops first.
    const ended = session();
    await ended.launch();
    runner.place(5000);
    await pass(0);
    await ended.end();
    // Ended while it starts; failed while it starts, and forgotten after its retention.
    const early = session();
    await early.launch();
    await early.end();
    const broken = session();
    await broken.launch();
    broken.fail('broken');
    await pass(60_000);
    // A ready one that stops answering fails.
    const silent = session({ startupTimeoutMs: 1_000 });
    await silent.launch();
    runner.place(5000);
    await pass(0);
    answers.set(5000, { ok: false });
    await silent.check();
    await pass(1_000);
    await silent.check();
    // Queued: ended, or failed by a restore that found its application lost.
    await session().end();
    session().fail('lost');
    // Restored with its application running: ready at once, or starting.
    const wasReady = session();
    wasReady.record.state = 'ready';
    await wasReady.resume({ pid: 9 });
    await session().resume({ pid: 10 });
    expect([ended, early, broken, silent, wasReady].map((s) => s.phase)).toEqual([
      'gone',
      'gone',
      'gone',
      'failed',
      'ready',
    ]);
    expect(taken).toEqual(legal);
  });
});
