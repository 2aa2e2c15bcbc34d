/**
 * The repository's catalog (and the tests' one, which the portal's tests show) says what its profiles stream: a
 * person picks "Light: 640x360" and must not get 1152x596. A profile whose maximum is above its start size follows
 * the viewer's window, and says so.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCatalog } from './load-catalog';
import type { ProfileSettings } from './model';

/** The sentence a description must hold for these settings. */
function sizeSentence(s: ProfileSettings): string {
  const start = `${s.width}x${s.height}`;
  return s.maxWidth > s.width || s.maxHeight > s.height
    ? `starts at ${start} and follows your window up to ${s.maxWidth}x${s.maxHeight}`
    : `fixed ${start}`;
}

describe.each(['catalog.yaml', 'test-support/catalog.yaml'])('%s', (file) => {
  it('describes each profile by the size and frame rate it streams at', async () => {
    const text = await readFile(path.resolve(import.meta.dirname, '../..', file), 'utf8');
    // Not loaded from its place: the tests' catalog names icons that the harness links beside it.
    const catalog = parseCatalog(text, file);
    expect(catalog.profiles.length).toBeGreaterThan(0);
    for (const profile of catalog.profiles) {
      // One line each: a failure names the profile.
      const description = profile.description.replace(/\s+/g, ' ');
      expect({ id: profile.id, description }).toEqual({
        id: profile.id,
        description: expect.stringContaining(sizeSentence(profile.settings)),
      });
      expect(description).toContain(`${profile.settings.fps} fps`);
    }
  });
});
