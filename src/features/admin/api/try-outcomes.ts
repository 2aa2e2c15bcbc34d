/**
 * The last outcome of each Try (an application version launched with a profile until its first frame),
 * kept in this browser's localStorage, one key per application, version and profile. The service keeps
 * nothing of them: they are what one admin saw, from one browser.
 */

/** How a Try ended. */
export type TryOutcome =
  | { kind: 'frame'; ms: number; at: number }
  | { kind: 'failed'; reason: string; at: number }
  | { kind: 'refused'; reason: string; at: number }
  | { kind: 'timeout'; seconds: number; at: number };

/** What a Try launches. */
export interface TryTarget {
  app: string;
  appName: string;
  version: string;
  profile: string;
  profileName: string;
}

/** The name of a target in words, as its Try button says it: "Model Viewer 1.3.1 with Default". */
export function targetLabel(t: TryTarget): string {
  return `${t.appName} ${t.version} with ${t.profileName}`;
}

/** Whether two targets launch the same version with the same profile. */
export function sameTarget(
  a: Pick<TryTarget, 'app' | 'version' | 'profile'>,
  b: Pick<TryTarget, 'app' | 'version' | 'profile'>,
): boolean {
  return a.app === b.app && a.version === b.version && a.profile === b.profile;
}

const PREFIX = 'streamgate.try:';

/** The localStorage key of a target's outcome. */
export function outcomeKey(t: Pick<TryTarget, 'app' | 'version' | 'profile'>): string {
  return `${PREFIX}${t.app}/${t.version}/${t.profile}`;
}

function isOutcome(v: unknown): v is TryOutcome {
  if (v === null || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  return typeof o.at === 'number' && ['frame', 'failed', 'refused', 'timeout'].includes(o.kind as string);
}

/** The last recorded outcome of a target, if any (an unreadable entry counts as none). */
export function readOutcome(t: Pick<TryTarget, 'app' | 'version' | 'profile'>): TryOutcome | undefined {
  try {
    const parsed: unknown = JSON.parse(globalThis.localStorage?.getItem(outcomeKey(t)) ?? 'null');
    return isOutcome(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

const listeners = new Set<() => void>();

/** Records a target's outcome, replacing the last one, and tells every subscriber. */
export function recordOutcome(t: Pick<TryTarget, 'app' | 'version' | 'profile'>, outcome: TryOutcome): void {
  try {
    globalThis.localStorage?.setItem(outcomeKey(t), JSON.stringify(outcome));
  } catch {
    // A full or locked storage loses the record, not the Try.
  }
  for (const listener of listeners) listener();
}

/** Calls `listener` when an outcome is recorded here or in another tab; returns the unsubscribe. */
export function subscribeOutcomes(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (e: StorageEvent) => {
    if (e.key === null || e.key.startsWith(PREFIX)) listener();
  };
  globalThis.addEventListener?.('storage', onStorage);
  return () => {
    listeners.delete(listener);
    globalThis.removeEventListener?.('storage', onStorage);
  };
}

/** How long ago `at` was, in words: "just now", "2 min ago", "3 h ago", "5 days ago". */
export function agoText(at: number, now: number): string {
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 60) return 'just now';
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min ago`;
  const h = Math.floor(min / 60);
  if (h < 24) return `${h} h ago`;
  const days = Math.floor(h / 24);
  return days === 1 ? '1 day ago' : `${days} days ago`;
}
