/**
 * Two sizes of the suite: `ci` (the default, trimmed so that the whole suite runs in a few minutes on two
 * cores) and `full` (RELIABILITY_PROFILE=full, the figures worth reporting).
 */
export type ProfileName = 'ci' | 'full';

export const PROFILE: ProfileName = process.env.RELIABILITY_PROFILE === 'full' ? 'full' : 'ci';

/** Picks the figure of the current profile. */
export function sized<T>(ci: T, full: T): T {
  return PROFILE === 'full' ? full : ci;
}

/** One figure on one line, easy to find in the output: `[reliability] name: value unit`. */
export function figure(name: string, value: number | string, unit = ''): void {
  console.log(`[reliability] ${name}: ${value}${unit ? ` ${unit}` : ''}`);
}
