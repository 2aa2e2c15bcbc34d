import { describe, expect, it } from 'vitest';
import { conditionBadge, pendingWords, type SessionCondition } from './session-condition';

describe('conditionBadge', () => {
  it('gives every condition of the contract its words and colour', () => {
    const all: Record<SessionCondition, [string, string]> = {
      pending: ['Waiting', 'info'],
      ready: ['Running', 'success'],
      failed: ['Failed', 'error'],
      ended: ['Ended', 'default'],
    };
    for (const [condition, [label, color]] of Object.entries(all))
      expect(conditionBadge(condition as SessionCondition, ''), condition).toMatchObject({ label, color });
  });

  it('tells a pending session that starts from one that waits, by the service’s words', () => {
    expect(conditionBadge('pending', 'Starting USD Viewer 1.2.0').label).toBe('Starting');
    expect(conditionBadge('pending', 'Starting on node-2').label).toBe('Starting');
    expect(conditionBadge('pending', 'Waiting for a free GPU: 2 sessions ahead').label).toBe('Waiting');
    expect(conditionBadge(undefined)).toMatchObject({ label: 'Unknown', color: 'default' });
  });
});

describe('pendingWords', () => {
  it('heads a queued session with what it waits for, and its place beneath', () => {
    expect(pendingWords("Waiting for a free GPU: you're next")).toEqual({
      heading: 'Waiting for a free GPU',
      detail: "You're next",
    });
    expect(pendingWords('Waiting for a free GPU: 2 sessions ahead')).toEqual({
      heading: 'Waiting for a free GPU',
      detail: '2 sessions ahead',
    });
  });

  it('heads a starting session with its own words, a Slurm wait with the service’s, and says something without', () => {
    expect(pendingWords('Starting USD Viewer 1.2.0')).toEqual({
      heading: 'Starting USD Viewer 1.2.0',
      detail: undefined,
    });
    expect(
      pendingWords('Waiting for a GPU in partition gpu behind jobs of higher priority, you’re next'),
    ).toEqual({
      heading: 'Waiting for a free GPU',
      detail: 'Waiting for a GPU in partition gpu behind jobs of higher priority, you’re next',
    });
    expect(pendingWords('')).toEqual({ heading: 'Preparing the session', detail: undefined });
  });
});
