/**
 * Key to photon in the page, shared by the benches that measure it (bench/viewer.ts, bench/door.ts): evaluated in
 * the page (or installed as an init script), it defines `window.nextKeyToPhoton(whole)`, which stamps the next keydown and resolves with the
 * time until a presented frame whose watched part changed (the sample application's "Last key" line, or, with
 * `whole`, the whole picture), and the video's size then; null when no frame showed it within 3 s.
 *
 * Two points of that frame's way: `ms`, when the browser expects it on the screen (its expected display time, what a
 * person sees), and `ready`, when the page handed it to the compositor (its presentation time). What lies between
 * is the browser's compositing, not the stream's: in headless Chromium 0, 17 or 33 ms (one display refresh or two),
 * whatever the stream; measured with 3 busy sessions beside, it alone moved a round's median from 16 to 39 ms.
 */
export const KEY_PROBE = `
window.nextKeyToPhoton = (whole) => new Promise((resolve) => {
  const video = document.querySelector('video');
  const w = video.videoWidth, h = video.videoHeight;
  // The panel's second line ("Pointer: ...  Last key: ..."), placed as scene.ts places it; not the frame counter below.
  const unit = Math.max(0.5, Math.min(w / 1280, h / 720));
  const top = Math.round(140 * unit);
  const box = whole
    ? { x: 0, y: 0, w, h }
    : { x: 0, y: Math.round(top + 40 * unit), w: Math.round(w * 0.6), h: Math.round(30 * unit) };
  const canvas = new OffscreenCanvas(box.w, box.h);
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  const grab = () => { ctx.drawImage(video, box.x, box.y, box.w, box.h, 0, 0, box.w, box.h); return ctx.getImageData(0, 0, box.w, box.h).data; };
  const before = grab();
  let pressed = null;
  document.addEventListener('keydown', (e) => { pressed = e.timeStamp; }, { capture: true, once: true });
  const deadline = performance.now() + 3000;
  const onFrame = (now, meta) => {
    // A frame shown before the key (its callback may run after it) cannot show it, whatever changed in it (a
    // keyframe's sharper or blurrier text, say). No picture is read until then: reading one holds up the page,
    // and with it the key's own handler.
    if (pressed !== null && meta.expectedDisplayTime >= pressed) {
      const after = grab();
      let changed = 0;
      for (let i = 0; i < after.length; i += 4) {
        const d = Math.abs(after[i] - before[i]) + Math.abs(after[i + 1] - before[i + 1]) + Math.abs(after[i + 2] - before[i + 2]);
        if (d > 150) changed++;
      }
      if (changed > 20) return resolve({ ms: meta.expectedDisplayTime - pressed, ready: meta.presentationTime - pressed, width: w, height: h });
    }
    if (performance.now() > deadline) return resolve(null);
    video.requestVideoFrameCallback(onFrame);
  };
  video.requestVideoFrameCallback(onFrame);
});
`;

/**
 * The same `window.nextKeyToPhoton(whole)` for a picture drawn on a canvas (noVNC's, bench/vnc-sessions.ts)
 * instead of a video: the first canvas of the page, compared whole (at a third of its size: a changed glyph still
 * changes pixels), at each animation frame after the keydown. A canvas has no presentation time: the figure is
 * the animation frame's own time stamp, the start of the frame that paints the change, which is no later than the
 * frame's display (a video's expected display time is, if anything, later): it does not favour the video.
 *
 * Its `ready`, like the video's, is when the page has the picture for the compositor: the first draw on a canvas of
 * the page (noVNC copies each update onto its visible canvas) after the keydown, stamped by a wrapper of the 2D
 * context's drawing calls that this script installs. A draw that is not the key's (none is expected in a terminal
 * that only echoes) would make noVNC's figure earlier, never later.
 */
export const CANVAS_KEY_PROBE = `
if (!window.__canvasDraws) {
  window.__canvasDraws = [];
  const proto = CanvasRenderingContext2D.prototype;
  for (const name of ['drawImage', 'putImageData', 'fillRect']) {
    const draw = proto[name];
    proto[name] = function (...args) {
      if (this.canvas.isConnected) {
        window.__canvasDraws.push(performance.now());
        if (window.__canvasDraws.length > 512) window.__canvasDraws.splice(0, 256);
      }
      return draw.apply(this, args);
    };
  }
}
window.nextKeyToPhoton = () => new Promise((resolve) => {
  const source = document.querySelector('canvas');
  const w = source.width, h = source.height;
  const canvas = new OffscreenCanvas(Math.round(w / 3), Math.round(h / 3));
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  const grab = () => { ctx.drawImage(source, 0, 0, canvas.width, canvas.height); return ctx.getImageData(0, 0, canvas.width, canvas.height).data; };
  const before = grab();
  let pressed = null;
  document.addEventListener('keydown', (e) => { pressed = e.timeStamp; }, { capture: true, once: true });
  const deadline = performance.now() + 3000;
  const onFrame = (now) => {
    if (pressed !== null && now >= pressed) {
      const after = grab();
      let changed = 0;
      for (let i = 0; i < after.length; i += 4) {
        const d = Math.abs(after[i] - before[i]) + Math.abs(after[i + 1] - before[i + 1]) + Math.abs(after[i + 2] - before[i + 2]);
        if (d > 150) changed++;
      }
      const drawn = window.__canvasDraws.find((t) => t >= pressed);
      if (changed > 2) return resolve({ ms: now - pressed, ready: (drawn ?? NaN) - pressed, width: w, height: h });
    }
    if (performance.now() > deadline) return resolve(null);
    requestAnimationFrame(onFrame);
  };
  requestAnimationFrame(onFrame);
});
`;

/** What `window.nextKeyToPhoton` resolves with. */
export type KeyToPhoton = { ms: number; ready: number; width: number; height: number } | null;

/** What `typeTimedKeys` saw: each key's time to photon, and the keys (1 for the first) no frame showed in 3 s. */
export interface TimedKeys {
  ms: number[];
  /** Each shown key's time until the page had its picture for the compositor (see the probes). */
  ready: number[];
  missed: number[];
}

/**
 * Types `count` letters into the viewer `page` shows (its probe installed: KEY_PROBE, or CANVAS_KEY_PROBE), each
 * timed to the presented frame that shows it (`whole`: any change of the picture, else the sample application's
 * "Last key" line). The first click, at the bottom right of `picture` (the portal's video by default; away from
 * the sample's panel), gives the viewer the keyboard.
 */
export async function typeTimedKeys(
  page: import('playwright-core').Page,
  count: number,
  whole = false,
  picture = page.getByLabel('Session stream', { exact: true }),
): Promise<TimedKeys> {
  const box = await picture.boundingBox();
  if (!box) throw new Error('the video has no box');
  await page.mouse.click(box.x + box.width * 0.9, box.y + box.height * 0.9);
  await page.waitForTimeout(1_000);
  const out: TimedKeys = { ms: [], ready: [], missed: [] };
  for (let i = 0; i < count; i += 1) {
    const measured = page.evaluate(
      (w) =>
        (window as unknown as { nextKeyToPhoton(whole: boolean): Promise<KeyToPhoton> }).nextKeyToPhoton(w),
      whole,
    );
    // The probe has its "before" picture once evaluate has started; a frame's time is enough for it.
    await page.waitForTimeout(50);
    await page.keyboard.press('abcdefghijklmnopqrstuvwxyz'[i % 26] as string);
    const seen = await measured;
    if (seen === null) out.missed.push(i + 1);
    else {
      out.ms.push(seen.ms);
      out.ready.push(seen.ready);
    }
    // Spread over a frame's time (0 to 33 ms in steps of 7): keys at a fixed period land at one phase of the
    // application's frame clock, and a whole round then measures one point of it (medians of 8 and of 40 ms
    // from the same machine in two rounds, each consistent in itself).
    await page.waitForTimeout(150 + ((i * 7) % 34));
  }
  return out;
}
