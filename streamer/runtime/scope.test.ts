import { describe, expect, it } from 'vitest';
import { Scope } from './scope.ts';

describe('Scope', () => {
  it('undoes what was deferred newest first, and goes on past a clean-up that throws', async () => {
    const undone: string[] = [];
    const scope = new Scope();
    scope.defer(() => undone.push('first'));
    scope.use('second', (v) => {
      undone.push(v);
      throw new Error('second could not be undone');
    });
    scope.defer(async () => void undone.push('third'));
    await expect(scope.dispose()).rejects.toThrow('second could not be undone');
    expect(undone).toEqual(['third', 'second', 'first']);
    // Once: a second dispose undoes nothing again.
    await scope.dispose().catch(() => undefined);
    expect(undone).toHaveLength(3);
    expect(() => scope.defer(() => undefined)).toThrow(/disposed/);
  });

  it('disposes something started beside a start that failed, once it is made', async () => {
    const undone: string[] = [];
    const scope = new Scope();
    let make: (value: string) => void = () => undefined;
    const slow = new Promise<string>((resolve) => (make = resolve));
    const start = scope.run(async () => {
      await Promise.all([
        scope.adopt(slow, (v) => undone.push(v)),
        scope.adopt(Promise.reject(new Error('the other failed')), () => undone.push('never made')),
      ]);
    });
    make('the slow one');
    await expect(start).rejects.toThrow('the other failed');
    expect(undone).toEqual(['the slow one']);
  });
});
