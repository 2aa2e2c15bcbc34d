import { describe, expect, it } from 'vitest';
import { connected, withPlayerHarness } from './testing/player-harness';

withPlayerHarness();

// A 1x1 PNG, as the display host sends it.
const URL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/q842iQAAAABJRU5ErkJggg==';
const image = (payload: Record<string, unknown>) => JSON.stringify({ event_type: 'cursorImage', payload });

describe("the application's pointer", () => {
  it("becomes a controlling viewer's cursor over the video, at its hot spot, and none when hidden", async () => {
    const h = await connected({ mode: 'control' });
    h.receive(image({ url: URL, hotspot_x: 3, hotspot_y: 7 }));
    expect(h.video.style.cursor).toBe(`url("${URL}") 3 7, default`);
    h.receive(image({ hidden: true }));
    expect(h.video.style.cursor).toBe('none');
    // Not an event of the message log: it changes with every widget the pointer crosses.
    expect(h.messages).toEqual([]);
    // The stream gone, the cursor is the page's own again.
    h.player.disconnect();
    expect(h.video.style.cursor).toBe('');
  });

  it("leaves a watcher's cursor as it is: the pointer stays in its video", async () => {
    const h = await connected({ mode: 'watch' });
    h.receive(image({ url: URL, hotspot_x: 3, hotspot_y: 7 }));
    h.receive(image({ hidden: true }));
    expect(h.video.style.cursor).toBe('');
    expect(h.messages).toEqual([]);
  });

  it('ignores an image that is not a PNG data URL with a hot spot inside the cursor', async () => {
    const h = await connected({ mode: 'control' });
    h.receive(image({ url: URL, hotspot_x: 1, hotspot_y: 1 }));
    for (const payload of [
      { url: 'https://example.org/x.png', hotspot_x: 0, hotspot_y: 0 },
      { url: `${URL}") 0 0, auto; background: url("x`, hotspot_x: 0, hotspot_y: 0 },
      { url: URL, hotspot_x: -1, hotspot_y: 0 },
      { url: URL, hotspot_x: 0, hotspot_y: 128 },
      { url: URL },
      { hidden: 'yes' },
    ])
      h.receive(image(payload));
    expect(h.video.style.cursor).toBe(`url("${URL}") 1 1, default`);
  });
});
