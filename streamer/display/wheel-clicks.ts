/**
 * The wheel as X knows it: clicks of buttons 4/5 (vertically) and 6/7 (horizontally). A viewer's wheel moves
 * in pixels, so each axis gathers them until they make a click of WHEEL_STEP pixels; what is left over waits
 * for the next event, as a touchpad's small movements add up.
 */

/** Pixels of wheel movement per X wheel click. */
export const WHEEL_STEP = 100;

/**
 * The most clicks one event gives on one axis: the parser clamps deltas to 1,000 pixels (INPUT_BOUNDS), and this
 * holds on its own, so that no delta makes work in proportion to its size.
 */
export const MAX_WHEEL_CLICKS = 10;

/**
 * The clicks (negative: up or left) that `delta` pixels make on an axis that had gathered `pending` pixels, and
 * the pixels it keeps for the next event. Past MAX_WHEEL_CLICKS the rest of the movement is dropped; a delta
 * that is not a finite number changes nothing.
 */
export function wheelClicks(pending: number, delta: number): { clicks: number; pending: number } {
  if (!Number.isFinite(delta)) return { clicks: 0, pending };
  const total = pending + delta;
  // `+ 0` makes a negative zero (a small movement up) plain zero.
  const clicks = Math.max(-MAX_WHEEL_CLICKS, Math.min(MAX_WHEEL_CLICKS, Math.trunc(total / WHEEL_STEP))) + 0;
  // The remainder is exact however large the total, so that it stays below one click.
  return { clicks, pending: (total % WHEEL_STEP) + 0 };
}
