/**
 * A session's lifetime (CONTRACT §11) and its extension (`POST /stream/{id}/extend`). A session runs its
 * profile's `lifetimeMs` (catalog `lifetime_min`) from when its application first runs, plus what it was
 * extended by, and never past its profile's `maxLifetimeMs` from then: that is the hard cap. A profile without
 * an initial lifetime runs its sessions to the cap from the start, so they have nothing to extend.
 */
import type { ProfileSettings } from '../catalog/model.ts';
import { span } from './session-messages.ts';

/** When a session ends (ms since the epoch), and the latest it could end by being extended. */
export interface Lifetime {
  endsAt: number;
  latestEndAt: number;
}

export function lifetimeOf(startedAt: number, settings: ProfileSettings, extendedMs: number): Lifetime {
  const latestEndAt = startedAt + settings.maxLifetimeMs;
  const initial = settings.lifetimeMs ?? settings.maxLifetimeMs;
  return { endsAt: Math.min(startedAt + initial + extendedMs, latestEndAt), latestEndAt };
}

/** A minute's worth is the least an extension is worth giving. */
const LEAST_MS = 60_000;

/**
 * The extension `minutes` more gives a session extended by `extendedMs` so far: its new `extendedMs`, cut at
 * the cap; or why it cannot be extended, in one sentence, when less than a minute is left to give.
 */
export function extended(
  startedAt: number,
  settings: ProfileSettings,
  extendedMs: number,
  minutes: number,
): { extendedMs: number } | { refused: string } {
  const { endsAt, latestEndAt } = lifetimeOf(startedAt, settings, extendedMs);
  const room = latestEndAt - endsAt;
  if (room < LEAST_MS)
    return {
      refused: `The session already runs to its profile's maximum lifetime of ${span(settings.maxLifetimeMs)}; it cannot be extended.`,
    };
  return { extendedMs: extendedMs + Math.min(minutes * 60_000, room) };
}
