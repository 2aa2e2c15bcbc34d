/**
 * The README shows every picture that `npm run screenshots` takes, and each picture it links is there: a page
 * added to the script, or a picture removed, cannot leave the README behind.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

describe('the screenshots', () => {
  it('are all linked from the README, and every one it links exists', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const linked = new Set([...readme.matchAll(/\(docs\/screenshots\/([\w-]+\.png)\)/g)].map((m) => m[1]));
    const script = readFileSync(path.join(root, 'scripts', 'screenshots.ts'), 'utf8');
    const taken = [...script.matchAll(/^ {4}name: '([\w-]+)',$/gm)].map((m) => `${m[1]}.png`);
    const files = readdirSync(path.join(root, 'docs', 'screenshots')).filter((f) => f.endsWith('.png'));
    expect(taken.length).toBeGreaterThan(0);
    expect([...linked].sort()).toEqual([...taken].sort());
    expect(files.sort()).toEqual([...taken].sort());
  });
});
