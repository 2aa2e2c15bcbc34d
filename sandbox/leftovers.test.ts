import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SOUND_DIR_GRACE_MS, SOUND_DIR_PREFIX, sweepStaleSoundDirs } from './leftovers.ts';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temporary folder with a session's sound folder and another folder in it, and a /proc whose processes run as `uids`. */
function machine(uids: number[]) {
  const root = mkdtempSync(path.join(tmpdir(), 'sweep-root-'));
  const proc = mkdtempSync(path.join(tmpdir(), 'sweep-proc-'));
  made.push(root, proc);
  const sound = path.join(root, `${SOUND_DIR_PREFIX}abc`);
  mkdirSync(sound);
  writeFileSync(path.join(sound, 'log'), 'E: gone\n');
  mkdirSync(path.join(root, 'someone-else'));
  uids.forEach((uid, i) => {
    mkdirSync(path.join(proc, String(100 + i)));
    writeFileSync(
      path.join(proc, String(100 + i), 'status'),
      `Name:\tx\nUid:\t${uid}\t${uid}\t${uid}\t${uid}\n`,
    );
  });
  mkdirSync(path.join(proc, 'self'));
  return { root, proc, sound };
}

const me = process.getuid?.() ?? 0;
/** A minute and a second after now: the folders just made are past their grace. */
const later = () => Date.now() + SOUND_DIR_GRACE_MS + 1000;

describe('sweepStaleSoundDirs', () => {
  it('removes a sound folder whose session user runs no process, and nothing else', () => {
    const { root, proc, sound } = machine([me + 1, me + 2]);
    expect(sweepStaleSoundDirs(root, proc, later())).toEqual([sound]);
    expect(existsSync(sound)).toBe(false);
    expect(existsSync(path.join(root, 'someone-else'))).toBe(true);
  });

  it('keeps a sound folder while a process of its session user runs', () => {
    const { root, proc, sound } = machine([me + 1, me]);
    expect(sweepStaleSoundDirs(root, proc, later())).toEqual([]);
    expect(existsSync(sound)).toBe(true);
  });

  it('keeps a folder just made, before its session user has a process (its sandbox starts after)', () => {
    const { root, proc, sound } = machine([me + 1]);
    expect(sweepStaleSoundDirs(root, proc)).toEqual([]);
    expect(existsSync(sound)).toBe(true);
  });

  it('removes nothing where the temporary folder cannot be read', () => {
    expect(sweepStaleSoundDirs(path.join(tmpdir(), 'no-such-folder-here'), '/proc')).toEqual([]);
  });
});
