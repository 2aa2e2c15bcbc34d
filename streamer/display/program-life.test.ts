/**
 * A program's life on fake time with fake processes: a replacement ends the old program before the new one
 * starts, the old one's exit ends nothing, and the session ends with whichever program runs last.
 */
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PROGRAM_GRACE_MS, ProgramLife, START_WAIT_MS, type Ending, type Launched } from './program-life.ts';

/** A process that exits when told to, or on the signals it heeds. */
class FakeChild extends EventEmitter {
  static nextPid = 100;
  readonly pid = FakeChild.nextPid++;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  readonly signals: NodeJS.Signals[] = [];
  constructor(private readonly heeds: readonly NodeJS.Signals[]) {
    super();
  }
  get running(): boolean {
    return this.exitCode === null && this.signalCode === null;
  }
  kill(signal: NodeJS.Signals): boolean {
    this.signals.push(signal);
    if (this.running && this.heeds.includes(signal)) this.exit(null, signal);
    return true;
  }
  exit(code: number | null, signal: NodeJS.Signals | null = null): void {
    this.exitCode = code;
    this.signalCode = signal;
    this.emit('exit', code, signal);
  }
}

interface Started {
  command: readonly string[];
  child: FakeChild;
  /** Every program started before this one had exited when it started. */
  aloneAtStart: boolean;
}

function harness(options: { heeds?: NodeJS.Signals[]; failOn?: string } = {}) {
  const started: Started[] = [];
  const listeners = new Set<() => void>();
  const launch = (command: readonly string[]): Launched => {
    if (command[0] === options.failOn) throw new Error('spawn ENOENT');
    const child = new FakeChild(options.heeds ?? ['SIGTERM', 'SIGKILL']);
    const aloneAtStart = started.every((earlier) => !earlier.child.running);
    started.push({ command, child, aloneAtStart });
    const ending = new Promise<Ending>((resolve) =>
      child.once('exit', (code: number | null, signal: string | null) =>
        resolve(
          code === 0
            ? { code: 0, reason: `${command[0]} exited` }
            : { code: 1, reason: `${command[0]} ${signal ?? code}` },
        ),
      ),
    );
    return { child: child as unknown as ChildProcess, ending };
  };
  const life = new ProgramLife(launch, ['viewer', '--empty'], (listener) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  });
  let ended: Ending | null = null;
  void life.ended.then((ending) => (ended = ending));
  return {
    life,
    started,
    mapWindow: () => [...listeners].forEach((listener) => listener()),
    watching: () => listeners.size,
    ended: () => ended,
  };
}

/** Lets promise callbacks run (and timers that are due), without moving the fake clock. */
const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe("a session's program", () => {
  it('ends the session when it exits by itself', async () => {
    const h = harness();
    expect(h.life.pid).toBe(h.started[0]?.child.pid);
    h.started[0]?.child.exit(3);
    await settle();
    expect(h.ended()).toEqual({ code: 1, reason: 'viewer 3' });
    expect(h.life.pid).toBeUndefined();
  });

  it('is replaced: the old one is ended first, its exit ends nothing, and the new one counts once its window maps', async () => {
    const h = harness();
    const replacing = h.life.replace(['viewer', '/home/user/Files/a.txt']);
    await settle();
    const [old, next] = h.started;
    expect(old?.child.signals).toEqual(['SIGTERM']);
    expect(next?.command).toEqual(['viewer', '/home/user/Files/a.txt']);
    expect(next?.aloneAtStart).toBe(true);
    expect(h.ended()).toBeNull();

    let result: unknown = null;
    void replacing.then((r) => (result = r));
    await settle();
    expect(result).toBeNull();
    h.mapWindow();
    await settle();
    expect(result).toEqual({ outcome: 'started' });
    expect(h.watching()).toBe(0);
    expect(h.life.pid).toBe(next?.child.pid);

    // From now on the new program is the session's.
    next?.child.exit(0);
    await settle();
    expect(h.ended()).toEqual({ code: 0, reason: 'viewer exited' });
  });

  it('kills an old program that ignores SIGTERM once its grace is over, and only then starts the new one', async () => {
    const h = harness({ heeds: ['SIGKILL'] });
    void h.life.replace(['viewer', 'b.txt']);
    await vi.advanceTimersByTimeAsync(PROGRAM_GRACE_MS - 1);
    expect(h.started).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.started[0]?.child.signals).toEqual(['SIGTERM', 'SIGKILL']);
    expect(h.started).toHaveLength(2);
    expect(h.ended()).toBeNull();
  });

  it('takes two replacements one after the other, never running two programs at once', async () => {
    const h = harness();
    const first = h.life.replace(['viewer', 'a.txt']);
    const second = h.life.replace(['viewer', 'b.txt']);
    await settle();
    expect(h.started.map((s) => s.command[1])).toEqual(['--empty', 'a.txt']);
    h.mapWindow();
    expect(await first).toEqual({ outcome: 'started' });
    await settle();
    expect(h.started.map((s) => s.command[1])).toEqual(['--empty', 'a.txt', 'b.txt']);
    h.mapWindow();
    expect(await second).toEqual({ outcome: 'started' });
    expect(h.started.every((s) => s.aloneAtStart)).toBe(true);
    expect(h.started.filter((s) => s.child.running)).toHaveLength(1);
    expect(h.ended()).toBeNull();
  });

  it("asks a replacement's check in its own turn, and leaves the program alone when the check refuses", async () => {
    const h = harness();
    let present = true;
    const first = h.life.replace(['viewer', 'a.txt']);
    const second = h.life.replace(['viewer', 'b.txt'], () => (present ? null : 'b.txt is gone.'));
    await settle();
    // Removed while the first replacement runs: the second sees it so in its turn.
    present = false;
    h.mapWindow();
    expect(await first).toEqual({ outcome: 'started' });
    expect(await second).toEqual({ outcome: 'refused', reason: 'b.txt is gone.' });
    expect(h.started.map((s) => s.command[1])).toEqual(['--empty', 'a.txt']);
    expect(h.started[1]?.child.signals).toEqual([]);
    expect(h.ended()).toBeNull();
  });

  it('counts a replacement that maps no window as started once it has run for a while', async () => {
    const h = harness();
    const replacing = h.life.replace(['viewer', 'a.txt']);
    let result: unknown = null;
    void replacing.then((r) => (result = r));
    await vi.advanceTimersByTimeAsync(START_WAIT_MS - 1);
    expect(result).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(result).toEqual({ outcome: 'started' });
  });

  it('ends the session when the replacement exits before it is up, and says why', async () => {
    const h = harness();
    const replacing = h.life.replace(['viewer', 'a.txt']);
    await settle();
    h.started[1]?.child.exit(2);
    expect(await replacing).toEqual({ outcome: 'failed', reason: 'viewer 2' });
    expect(h.ended()).toEqual({ code: 1, reason: 'viewer 2' });
  });

  it('ends the session when the replacement cannot even be spawned', async () => {
    const h = harness({ failOn: 'missing' });
    const result = await h.life.replace(['missing', 'a.txt']);
    const reason = 'missing could not be started: spawn ENOENT';
    expect(result).toEqual({ outcome: 'failed', reason });
    await settle();
    expect(h.ended()).toEqual({ code: 1, reason });
  });

  it('starts nothing more once stopped, even a replacement under way', async () => {
    const h = harness({ heeds: ['SIGKILL'] });
    const replacing = h.life.replace(['viewer', 'a.txt']);
    await settle();
    const stopping = h.life.stop();
    await vi.advanceTimersByTimeAsync(PROGRAM_GRACE_MS);
    await stopping;
    expect(await replacing).toEqual({ outcome: 'refused', reason: 'The session is ending.' });
    expect(await h.life.replace(['viewer', 'b.txt'])).toEqual({
      outcome: 'refused',
      reason: 'The session is ending.',
    });
    expect(h.started).toHaveLength(1);
    expect(h.started[0]?.child.running).toBe(false);
    expect(h.ended()).toBeNull();
  });
});
