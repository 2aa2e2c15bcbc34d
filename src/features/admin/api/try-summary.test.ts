import { describe, expect, it } from 'vitest';
import { profiles } from '../../../test/fixtures';
import type { TryOutcome } from './try-outcomes';
import { applicableTargets, summarizeTries, summaryText } from './try-summary';

describe('try summary', () => {
  it('lists the cells that can be tried, row by row, only where a profile applies', () => {
    const targets = applicableTargets(profiles, [
      { app: 'a', appName: 'A', version: '2', applies: ['default', 'small'] },
      { app: 'a', appName: 'A', version: '1', applies: ['default'] },
      { app: 'b', appName: 'B', version: '1', applies: [], error: 'unreadable' },
    ]);
    expect(targets.map((t) => `${t.app} ${t.version} ${t.profileName}`)).toEqual([
      'a 2 Default',
      'a 2 Small',
      'a 1 Default',
    ]);
  });

  it('counts what works, what failed or timed out, what was refused and what is untested', () => {
    const at = 0;
    const outcomes: (TryOutcome | undefined)[] = [
      { kind: 'frame', ms: 800, at },
      { kind: 'frame', ms: 900, at },
      { kind: 'failed', reason: 'exited', at },
      { kind: 'timeout', seconds: 60, at },
      { kind: 'refused', reason: 'full', at },
      undefined,
    ];
    const targets = outcomes.map((_, i) => ({
      app: 'a',
      appName: 'A',
      version: String(i),
      profile: 'p',
      profileName: 'P',
    }));
    const summary = summarizeTries(targets, (t) => outcomes[Number(t.version)]);
    expect(summary).toEqual({ total: 6, work: 2, failed: 2, refused: 1, untested: 1 });
    expect(summaryText(summary)).toBe('2 of 6 work, 2 failed, 1 refused, 1 untested');
  });

  it('says only the counts that are not zero', () => {
    expect(summaryText({ total: 8, work: 5, failed: 2, refused: 0, untested: 1 })).toBe(
      '5 of 8 work, 2 failed, 1 untested',
    );
    expect(summaryText({ total: 3, work: 1, failed: 0, refused: 0, untested: 2 })).toBe(
      '1 of 3 works, 2 untested',
    );
    expect(summaryText({ total: 0, work: 0, failed: 0, refused: 0, untested: 0 })).toMatch(/^Nothing to try/);
  });
});
