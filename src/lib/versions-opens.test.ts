import { describe, expect, it } from 'vitest';
import { opensFile, readOpens } from './versions';

describe('a version’s opens', () => {
  it('reads extensions as written by any deployment: lower case, without the dot, absent when empty', () => {
    expect(readOpens(['.OBJ', 'stl', ' tar.gz ', 3, ''])).toEqual(['obj', 'stl', 'tar.gz']);
    expect(readOpens([])).toBeUndefined();
    expect(readOpens('obj')).toBeUndefined();
    expect(readOpens(undefined)).toBeUndefined();
  });

  it('matches a name by its ending, whatever its case, and never a bare extension', () => {
    const opens = ['obj', 'tar.gz'];
    expect(opensFile('Part.OBJ', opens)).toBe(true);
    expect(opensFile('scene.tar.gz', opens)).toBe(true);
    expect(opensFile('notes.txt', opens)).toBe(false);
    expect(opensFile('objects', opens)).toBe(false);
    expect(opensFile('.obj', opens)).toBe(false);
    expect(opensFile('part.obj', undefined)).toBe(false);
  });
});
