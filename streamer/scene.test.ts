/** The status panel: a key a person pressed is in the very next frame; counters are redrawn at most 10 times a second. */
import { describe, expect, it } from 'vitest';
import { Scene, type SceneState } from './scene.ts';

const state = (): SceneState => ({
  appName: 'USD Viewer',
  appVersion: '1.2.0',
  profile: 'default',
  stageUri: '',
  loadingState: 'idle',
  pointer: null,
  lastKey: '',
  viewers: 0,
  seq: 0,
  // No marks strip: frames drawn at one instant then differ only where the panel does.
  testMarks: false,
});

describe('the status panel', () => {
  it('shows a key in the next frame, however soon, and holds the frame counter back', () => {
    const s = state();
    const scene = new Scene(640, 360, s);
    // One instant for every frame, so that the moving parts stand still and only the panel can differ.
    const first = Buffer.from(scene.render(1_000));
    // The frame counter changed, but within 100 ms it is not redrawn: the same picture.
    expect(Buffer.from(scene.render(1_000)).equals(first)).toBe(true);
    s.lastKey = 'a';
    expect(Buffer.from(scene.render(1_000)).equals(first)).toBe(false);
  });
});
