import { fstatSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { announceReady, READY_FD_ENV } from './ready-line.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'ready-line-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the ready line', () => {
  it('is written once on the descriptor the environment names, which it then closes', () => {
    const file = path.join(dir, 'line');
    const fd = openSync(file, 'w');
    const env: NodeJS.ProcessEnv = { [READY_FD_ENV]: String(fd) };
    announceReady(env);
    announceReady(env);
    expect(readFileSync(file, 'utf8')).toBe('ready\n');
    expect(env[READY_FD_ENV]).toBeUndefined();
    expect(() => fstatSync(fd)).toThrow(/EBADF/);
  });

  it('is not written without a descriptor, nor on the standard ones, and a closed one is no error', () => {
    expect(() => announceReady({})).not.toThrow();
    expect(() => announceReady({ [READY_FD_ENV]: '1' })).not.toThrow();
    expect(() => announceReady({ [READY_FD_ENV]: 'x' })).not.toThrow();
    const fd = openSync(path.join(dir, 'closed'), 'w');
    announceReady({ [READY_FD_ENV]: String(fd) }); // closes it
    expect(() => announceReady({ [READY_FD_ENV]: String(fd) })).not.toThrow();
  });
});
