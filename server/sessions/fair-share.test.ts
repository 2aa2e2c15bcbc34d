import { describe, expect, it } from 'vitest';
import { GpuShare, shareMessage, userGpuShare, type SharedSession } from './fair-share.ts';

/** A session as the share sees it. */
class Fake implements SharedSession {
  warm = false;
  constructor(
    readonly name: string,
    owner: string,
    public phase: 'queued' | 'starting' | 'ready' | 'gone' = 'queued',
    admin = false,
  ) {
    this.record = { owner };
    this.request = { admin };
  }
  readonly record: { owner: string };
  readonly request: { admin: boolean };
  get holdsGpu() {
    return this.phase === 'starting' || this.phase === 'ready';
  }
}

const names = (sessions: Fake[]) => sessions.map((s) => s.name);

describe("a user's share of the GPUs", () => {
  it('is half the capacity by default, rounded up, and at least one GPU', () => {
    expect(userGpuShare(2, 50)).toBe(1);
    expect(userGpuShare(5, 50)).toBe(3);
    expect(userGpuShare(1, 50)).toBe(1);
    expect(userGpuShare(8, 25)).toBe(2);
    expect(userGpuShare(3, 1)).toBe(1);
    expect(userGpuShare(4, 100)).toBe(4);
    expect(userGpuShare(4, null)).toBeNull();
  });

  it('passes over the sessions of a user who holds the share; others behind them start first', () => {
    const running = new Fake('alice-1', 'alice', 'ready');
    const share = new GpuShare<Fake>(userGpuShare(2, 50), 2, () => [running]);
    const queue = [new Fake('alice-2', 'alice'), new Fake('alice-3', 'alice'), new Fake('bob-1', 'bob')];
    expect(names(share.pick(queue, 1))).toEqual(['bob-1']);
    expect(share.waiting(queue[0]!)).toBe(shareMessage(1, 2));
    expect(share.waiting(queue[0]!)).toBe(
      'Waiting: you already use your share of the GPUs (1 of 2); this session starts when one of yours ends',
    );
    expect(share.waiting(queue[2]!)).toBeUndefined();
    // With no GPU free, nothing starts; with many, still only what the shares allow.
    expect(share.pick(queue, 0)).toEqual([]);
    expect(names(share.pick(queue, Infinity))).toEqual(['bob-1']);

    // Alice's session ends: her next one is first in line again.
    running.phase = 'gone';
    expect(names(share.pick(queue, 1))).toEqual(['alice-2']);
    expect(share.waiting(queue[0]!)).toBeUndefined();
  });

  it('counts the sessions it picks against their owner: one pick does not give a user two GPUs', () => {
    const share = new GpuShare<Fake>(userGpuShare(4, 50), 4, () => []);
    const queue = ['alice-1', 'alice-2', 'alice-3', 'bob-1', 'bob-2', 'bob-3'].map(
      (name) => new Fake(name, name.split('-')[0]!),
    );
    expect(names(share.pick(queue, 4))).toEqual(['alice-1', 'alice-2', 'bob-1', 'bob-2']);
    expect(names(share.pick(queue, 3))).toEqual(['alice-1', 'alice-2', 'bob-1']);
  });

  it('holds back neither admins (the anonymous caller of a set-up without tokens is one) nor warm applications', () => {
    const held: Fake[] = [];
    const share = new GpuShare<Fake>(userGpuShare(2, 50), 2, () => held);
    held.push(new Fake('admin-1', 'anonymous', 'ready', true));
    const queue = [new Fake('admin-2', 'anonymous', 'queued', true)];
    expect(names(share.pick(queue, 1))).toEqual(['admin-2']);
    expect(share.allows({ owner: 'anonymous', admin: true })).toBe(true);
    const warm = new Fake('warm', 'nobody', 'ready');
    warm.warm = true;
    held.push(warm);
    expect(share.allows({ owner: 'nobody' })).toBe(true);
  });

  it('leaves the queue first in, first out when there is no share', () => {
    const share = new GpuShare<Fake>(null, 2, () => [new Fake('alice-1', 'alice', 'ready')]);
    const queue = [new Fake('alice-2', 'alice'), new Fake('bob-1', 'bob')];
    expect(names(share.pick(queue, 1))).toEqual(['alice-2']);
    expect(share.waiting(queue[0]!)).toBeUndefined();
    expect(share.allows({ owner: 'alice' })).toBe(true);
  });

  it('counts what the sessions hold when asked, whatever changed since', () => {
    const sessions = [new Fake('a', 'alice', 'ready'), new Fake('b', 'bob', 'starting')];
    const share = new GpuShare<Fake>(1 /* one GPU each */, 3, () => sessions);
    expect(share.allows({ owner: 'alice' })).toBe(false);
    expect(share.allows({ owner: 'bob' })).toBe(false);
    expect(share.allows({ owner: 'carol' })).toBe(true);
    sessions[0]!.phase = 'gone';
    expect(share.allows({ owner: 'alice' })).toBe(true);
    expect(share.allows({ owner: 'bob' })).toBe(false);
  });
});
