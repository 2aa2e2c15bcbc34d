/**
 * Warm applications (CONTRACT §16): for each launch the catalog keeps warm, up to N sessions started for
 * nobody and ready, so that a request for that launch is handed one at once (`claim`). The pool decides
 * which to start, which to give up and which to hand out; the manager creates, launches and ends them,
 * and warm sessions hold GPUs like any other, so they are only started while a GPU is free and nobody
 * waits, and are ended first when someone does.
 */
import type { WarmTarget } from '../catalog/queries.ts';
import type { LaunchTarget } from '../catalog/model.ts';
import type { Session } from './session.ts';
import type { SessionRequest } from '../runners/runner.ts';

/** What the pool needs from the manager, which also tells it of every change of a session (`update`). */
export interface WarmPoolContext {
  hasFreeGpu(): boolean;
  /** Creates and launches a warm session for `request` (its owner is nobody, its arguments its version's defaults). */
  startWarm(request: SessionRequest): void;
  /** Ends a session, giving back its GPU. */
  end(id: string): Promise<void>;
}

/** Warm sessions and their target for one profile, as the capacity report shows them. */
export interface WarmProfileCounts {
  profile: string;
  /** Warm applications the catalog asks for over every version the profile applies to. */
  target: number;
  /** Warm applications held now, starting or ready. */
  warm: number;
}

/** After a warm application fails, the next one for its launch waits this long, doubled per failure. */
const FIRST_BACKOFF_MS = 2_000;
const MAX_BACKOFF_MS = 5 * 60_000;

/** The owner of a warm session: no person's name can be empty (tokens and the header name a user). */
export const NOBODY = '';

function keyOf(target: LaunchTarget): string {
  return `${target.app.id}\n${target.version}\n${target.profile.id}`;
}

export class WarmPool {
  /** Failures in a row per launch, and when the next may be started. */
  private readonly backoff = new Map<string, { failures: number; retryAt: number }>();
  /**
   * The warm sessions the manager holds, not yet gone: the pool looks through these, not through every
   * session, since it is asked on every request (`claim`) and every change of the queue (`giveWay`).
   */
  private held = new Set<Session>();

  constructor(
    private readonly targets: readonly WarmTarget[],
    private readonly context: WarmPoolContext,
  ) {}

  /** Told of a session's change (a warm one created, claimed, gone ...) by the manager. */
  update(session: Session): void {
    if (session.warm && session.phase !== 'gone') this.held.add(session);
    else this.held.delete(session);
  }

  /** Takes the warm sessions afresh from all the manager holds, after changes to many at once (a restore). */
  recount(sessions: Iterable<Session>): void {
    this.held = new Set();
    for (const session of sessions) this.update(session);
  }

  /**
   * Hands a warm session matching `request` to it: a ready one first, else one still starting. Only a request
   * with the very arguments it was started with matches (its version's defaults, or none).
   */
  claim(request: SessionRequest): Session | undefined {
    const key = keyOf(request);
    const wanted = canonical(request.arguments);
    let best: Session | undefined;
    for (const session of this.live()) {
      if (keyOf(session.request) !== key || canonical(session.request.arguments) !== wanted) continue;
      if (session.phase === 'ready') {
        best = session;
        break;
      }
      best ??= session;
    }
    return best?.claim(request) ? best : undefined;
  }

  /** Starts what is missing, in catalog order, while a GPU is free. The caller makes sure nobody waits. */
  fill(): void {
    if (this.targets.length === 0) return;
    const held = this.heldByKey();
    const now = Date.now();
    for (const { target, count, arguments: defaults } of this.targets) {
      const key = keyOf(target);
      if ((this.backoff.get(key)?.retryAt ?? 0) > now) continue;
      for (let have = held.get(key) ?? 0; have < count; have++) {
        if (!this.context.hasFreeGpu()) return;
        this.context.startWarm({ ...target, owner: NOBODY, arguments: { ...defaults } });
      }
    }
  }

  /**
   * Ends as many warm sessions as sessions wait (or every one left). An ending warm session holds no GPU, so the
   * ones already ending freed theirs: those waiting now need more.
   */
  giveWay(waiting: number): void {
    const live = [...this.live()];
    // Those still starting are the cheapest to give up.
    live.sort((a, b) => Number(a.phase === 'ready') - Number(b.phase === 'ready'));
    for (const session of live.slice(0, waiting)) void this.context.end(session.id);
  }

  /** A warm application became ready: its launch works, so failures are forgotten. */
  ready(session: Session): void {
    this.backoff.delete(keyOf(session.request));
  }

  /**
   * A warm application failed: nobody reads its reason, so it goes at once, and the next for its launch
   * waits, longer after each failure in a row.
   */
  failed(session: Session): void {
    queueMicrotask(() => void session.end());
    const key = keyOf(session.request);
    const failures = (this.backoff.get(key)?.failures ?? 0) + 1;
    const wait = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (failures - 1));
    this.backoff.set(key, { failures, retryAt: Date.now() + wait });
  }

  /** Target and warm sessions held, per profile that keeps any warm, in catalog order. */
  byProfile(): WarmProfileCounts[] {
    const counts = new Map<string, WarmProfileCounts>();
    for (const { target, count } of this.targets) {
      const entry = counts.get(target.profile.id) ?? { profile: target.profile.id, target: 0, warm: 0 };
      entry.target += count;
      counts.set(target.profile.id, entry);
    }
    for (const session of this.live()) {
      const entry = counts.get(session.request.profile.id);
      if (entry) entry.warm++;
    }
    return [...counts.values()];
  }

  /** Warm sessions starting or ready (not ending). */
  private *live(): Generator<Session> {
    for (const session of this.held) {
      if (session.phase === 'starting' || session.phase === 'ready') yield session;
    }
  }

  private heldByKey(): Map<string, number> {
    const held = new Map<string, number>();
    for (const session of this.held) {
      if (session.phase === 'failed') continue;
      // An ending warm session is being given up: it no longer counts toward its target.
      if (session.phase === 'ending') continue;
      const key = keyOf(session.request);
      held.set(key, (held.get(key) ?? 0) + 1);
    }
    return held;
  }
}

/** Arguments as one text whatever the order of their keys, to compare two launches' arguments. */
function canonical(args: Record<string, unknown>): string {
  return JSON.stringify(
    Object.keys(args)
      .sort()
      .map((name) => [name, args[name]]),
  );
}
