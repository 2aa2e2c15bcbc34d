/**
 * When a viewer that never said goodbye is taken as gone (viewer-liveness.ts), on injected time: the checks of
 * an application's timer and the packets of a viewer, each at the time it comes.
 */
import { describe, expect, it } from 'vitest';
import { KEEP_ALIVE_EVERY_MS } from '../../protocol/data-channels.ts';
import { KEEP_ALIVE_TIMEOUT_MS, ViewerLiveness } from './viewer-liveness.ts';

const SILENCE_TIMEOUT_MS = 15_000;

/** What a viewer sends, at the times (ms) it arrives. */
interface Traffic {
  keepAlives?: number[];
  /** RTCP on a track, or input and messages that are not keep-alives. */
  packets?: number[];
}

/** Every `every` ms from `from` until before `to`. */
const times = (from: number, to: number, every = KEEP_ALIVE_EVERY_MS) =>
  Array.from({ length: Math.max(0, Math.ceil((to - from) / every)) }, (_, i) => from + i * every);

/**
 * Runs the application's checks until `endMs`, as its timer would (`heldUp`: checks that come that much late, a
 * busy event loop), with the viewer's traffic heard in between; the time the viewer was taken as gone, or null.
 */
function goneAt(traffic: Traffic, endMs: number, heldUp = new Map<number, number>()): number | null {
  let now = 0;
  const liveness = new ViewerLiveness(SILENCE_TIMEOUT_MS, () => now);
  const arrivals = [
    ...(traffic.keepAlives ?? []).map((at) => ({ at, keepAlive: true })),
    ...(traffic.packets ?? []).map((at) => ({ at, keepAlive: false })),
  ].sort((a, b) => a.at - b.at);
  let next = 0;
  for (let check = liveness.checkEveryMs; check <= endMs; check += liveness.checkEveryMs) {
    const late = heldUp.get(check) ?? 0;
    // Packets that came before the check: held up, the loop has not read those of the delay yet.
    for (; next < arrivals.length && (arrivals[next]?.at ?? Infinity) <= check; next++) {
      const { at, keepAlive } = arrivals[next] as { at: number; keepAlive: boolean };
      now = at;
      if (keepAlive) liveness.keptAlive();
      else liveness.heard();
    }
    now = check + late;
    if (liveness.check()) return now;
    check += late;
  }
  return null;
}

describe('a viewer that never sent a keep-alive (another WHEP client)', () => {
  it('keeps its place through any silence shorter than the silence timeout', () => {
    // RTCP every 5 s, as seldom as RTP allows, then nothing for 14.9 s, and one more.
    const packets = [...times(0, 30_000, 5_000), 25_000 + 14_900];
    expect(goneAt({ packets }, 60_000)).toBeGreaterThan(39_900 + SILENCE_TIMEOUT_MS);
    expect(goneAt({ packets: times(0, 120_000, 5_000) }, 120_000)).toBeNull();
  });

  it('is gone once silent for the silence timeout', () => {
    const gone = goneAt({ packets: [1_000, 2_000] }, 60_000) as number;
    expect(gone - 2_000).toBeGreaterThan(SILENCE_TIMEOUT_MS);
    expect(gone - 2_000).toBeLessThanOrEqual(SILENCE_TIMEOUT_MS + 250);
  });
});

describe('a viewer that sends keep-alives (the portal’s player)', () => {
  it('keeps its place as long as they come', () => {
    expect(goneAt({ keepAlives: times(500, 600_000) }, 600_000)).toBeNull();
  });

  it('is gone within 5 s of its last packet, not before the keep-alive timeout', () => {
    for (const last of [10_500, 10_510, 10_740, 10_999]) {
      const keepAlives = [...times(500, 10_000), last];
      const gone = goneAt({ keepAlives }, 60_000) as number;
      expect(gone - last).toBeGreaterThan(KEEP_ALIVE_TIMEOUT_MS);
      expect(gone - last).toBeLessThanOrEqual(KEEP_ALIVE_TIMEOUT_MS + 250);
      expect(gone - last).toBeLessThan(5_000);
    }
  });

  it('keeps its place through a network that drops everything for two seconds', () => {
    // Its last packet a second before the drop; everything sent during it is lost.
    const keepAlives = [...times(500, 10_000), ...times(12_500, 30_000)];
    expect(goneAt({ keepAlives }, 30_000)).toBeNull();
  });

  it('keeps its place on a slow phone whose keep-alives come up to three seconds apart', () => {
    const keepAlives = [0, 1_000, 4_000, 5_200, 8_100, 9_000, 12_000, 15_000, 16_000, 19_000];
    expect(goneAt({ keepAlives }, 19_000)).toBeNull();
  });

  it('keeps its place while its page is frozen and its browser still sends RTCP', () => {
    const traffic = { keepAlives: times(500, 5_000), packets: times(0, 60_000, 900) };
    expect(goneAt(traffic, 60_000)).toBeNull();
  });

  it('is not taken as gone while the application’s own event loop is held up', () => {
    // Six seconds without a check (an encoder's restart on a busy machine): its keep-alives wait behind it.
    const keepAlives = times(500, 60_000);
    expect(goneAt({ keepAlives }, 60_000, new Map([[10_000, 6_000]]))).toBeNull();
    // Gone meanwhile, it is gone a little later than otherwise, not never.
    const gone = goneAt({ keepAlives: times(500, 9_000) }, 60_000, new Map([[10_000, 6_000]]));
    expect(gone).toBeGreaterThan(16_000);
    expect(gone).toBeLessThan(16_000 + 5_000);
  });

  it('keeps a shorter silence timeout as its limit', () => {
    let now = 0;
    const liveness = new ViewerLiveness(600, () => now);
    liveness.keptAlive();
    expect(liveness.timeoutMs).toBe(600);
    expect(liveness.checkEveryMs).toBe(200);
    now = 200;
    expect(liveness.check()).toBe(false);
    now = 400;
    expect(liveness.check()).toBe(false);
    now = 600;
    expect(liveness.check()).toBe(false);
    now = 800;
    expect(liveness.check()).toBe(true);
  });
});
