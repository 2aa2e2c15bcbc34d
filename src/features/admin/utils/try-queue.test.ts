/** The admin page's Tries, one at a time, on fake time: results, the timeout, Cancel, and a Try all. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TryOutcome, TryTarget } from '../api/try-outcomes';
import { TryQueue, type RunningTry } from './try-queue';

const target = (version: string): TryTarget => ({
  app: 'usd-viewer',
  appName: 'USD Viewer',
  version,
  profile: 'default',
  profileName: 'Default',
});

/** A promise and its resolve, to settle a request when the test says. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A queue whose launches and ends wait for the test; what it did, in order. */
function queue() {
  const log: string[] = [];
  const launches: { version: string; answer: ReturnType<typeof deferred<{ id: string }>> }[] = [];
  const ends: { id: string; done: ReturnType<typeof deferred<void>> }[] = [];
  const outcomes: [string, TryOutcome['kind']][] = [];
  let running: RunningTry | undefined;
  const q = new TryQueue({
    create: (t) => {
      log.push(`create ${t.version}`);
      const answer = deferred<{ id: string }>();
      launches.push({ version: t.version, answer });
      return answer.promise;
    },
    end: (id) => {
      log.push(`end ${id}`);
      const done = deferred<void>();
      ends.push({ id, done });
      return done.promise;
    },
    record: (t, o) => outcomes.push([t.version, o.kind]),
    onChange: (r) => (running = r),
    timeoutMs: 60_000,
  });
  return { q, log, launches, ends, outcomes, running: () => running };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('TryQueue', () => {
  it('tries every target in turn, each launched once the session before it has ended', async () => {
    const { q, log, launches, ends, outcomes, running } = queue();
    q.startAll([target('1.0.0'), target('2.0.0')]);
    await vi.advanceTimersByTimeAsync(0);
    expect(running()).toMatchObject({ target: { version: '1.0.0' }, batch: { index: 1, total: 2 } });
    launches[0]!.answer.resolve({ id: 'a' });
    await vi.advanceTimersByTimeAsync(0);
    expect(running()?.sessionId).toBe('a');

    await vi.advanceTimersByTimeAsync(1_500);
    q.settle({ kind: 'frame' });
    expect(outcomes).toEqual([['1.0.0', 'frame']]);
    // The next is shown at once, and waits for the first session's end to launch.
    expect(running()).toMatchObject({ target: { version: '2.0.0' }, batch: { index: 2, total: 2 } });
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['create 1.0.0', 'end a']);
    ends[0]!.done.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['create 1.0.0', 'end a', 'create 2.0.0']);

    launches[1]!.answer.resolve({ id: 'b' });
    await vi.advanceTimersByTimeAsync(0);
    q.settle({ kind: 'failed', reason: 'No video arrived.' });
    expect(outcomes).toEqual([
      ['1.0.0', 'frame'],
      ['2.0.0', 'failed'],
    ]);
    expect(running()).toBeUndefined();
  });

  it('times the first frame from the launch, not from the wait before it', async () => {
    const recorded: TryOutcome[] = [];
    const q = new TryQueue({
      create: () => Promise.resolve({ id: 'a' }),
      end: () => Promise.resolve(),
      record: (_t, o) => recorded.push(o),
      onChange: () => undefined,
    });
    q.start(target('1.0.0'));
    await vi.advanceTimersByTimeAsync(812);
    q.settle({ kind: 'frame' });
    expect(recorded).toEqual([{ kind: 'frame', ms: 812, at: Date.now() }]);
  });

  it('gives a Try up after the timeout, records it, and goes on to the next', async () => {
    const { q, log, launches, ends, outcomes } = queue();
    q.startAll([target('1.0.0'), target('2.0.0')]);
    await vi.advanceTimersByTimeAsync(0);
    launches[0]!.answer.resolve({ id: 'a' });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(outcomes).toEqual([['1.0.0', 'timeout']]);
    ends[0]!.done.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['create 1.0.0', 'end a', 'create 2.0.0']);
  });

  it('Cancel ends the session, records nothing and drops the rest', async () => {
    const { q, log, launches, ends, outcomes, running } = queue();
    q.startAll([target('1.0.0'), target('2.0.0')]);
    await vi.advanceTimersByTimeAsync(0);
    launches[0]!.answer.resolve({ id: 'a' });
    await vi.advanceTimersByTimeAsync(0);
    q.cancel();
    expect(running()).toBeUndefined();
    ends[0]!.done.resolve();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(log).toEqual(['create 1.0.0', 'end a']);
    expect(outcomes).toEqual([]);
  });

  it('ends a session whose launch answers after its Try was given up', async () => {
    const { q, log, launches } = queue();
    q.start(target('1.0.0'));
    await vi.advanceTimersByTimeAsync(0);
    q.cancel();
    launches[0]!.answer.resolve({ id: 'late' });
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['create 1.0.0', 'end late']);
  });

  it('starts nothing while a Try runs', async () => {
    const { q, log } = queue();
    q.start(target('1.0.0'));
    q.startAll([target('2.0.0')]);
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['create 1.0.0']);
  });
});
