/**
 * What a session is and has been: its phase, its record and what is saved of it, and the transitions that
 * change only those. The session's life (launch, readiness, health, end) is session.ts, its subclass; the
 * two are one actor, and nothing outside them writes their state.
 */
import { lifetimeOf, type Lifetime } from './lifetime.ts';
import type { PersistedSession } from './saved-session.ts';
import { readyMessage, waitingMessage } from './session-messages.ts';
import { HealthWatch } from './session-watch.ts';
import type { EndCause, SessionRecord } from './types.ts';
import type { RunHandle, SessionRequest } from '../runners/runner.ts';

/** Finer than the API's states: `queued` and `starting` are both `pending`; `ending` keeps its GPU; `gone` is not held. */
export type Phase = 'queued' | 'starting' | 'ready' | 'ending' | 'failed' | 'gone';

/** What happened to a session; every event but `ending` changed what is saved of it. */
export type SessionEvent =
  | { type: 'starting' }
  /** Its application runs: ports and process are on the record. */
  | { type: 'launched' }
  /** Its application waits for a place to run: its message says why. */
  | { type: 'waiting' }
  | { type: 'ready' }
  /** A warm session was handed to a person: owner, request and creation time are theirs now. */
  | { type: 'claimed' }
  /** Its sharing was stopped: watch tickets issued until `watchCutoffMs` are refused. */
  | { type: 'sharingStopped' }
  /** It was extended: it ends later. */
  | { type: 'extended' }
  | { type: 'failed'; reason: string }
  | { type: 'ending' }
  | { type: 'gone' };

export abstract class SessionCore implements PersistedSession {
  readonly record: SessionRecord;
  request: SessionRequest;
  readonly seq: number;
  protected current: Phase;
  protected started: number | undefined;
  protected ticks: string | undefined;
  protected unclaimed: boolean;
  protected cutoff: number | undefined;
  /** What it was extended by, beyond its profile's initial lifetime (lifetime.ts). */
  protected extension: number;
  /** Why it was asked to end, and by whom: the first ask counts. */
  protected because: { cause: Exclude<EndCause, 'failed'>; by?: string } | undefined;
  protected forgetTimer: NodeJS.Timeout | undefined;
  protected readonly watch = new HealthWatch();
  private waiters: (() => void)[] | undefined;

  protected constructor(
    saved: PersistedSession,
    phase: Phase,
    /** A failed session is kept (answering 410) this long, then gone. */
    private readonly failedRetentionMs: number,
  ) {
    this.record = saved.record;
    this.request = saved.request;
    this.seq = saved.seq;
    this.started = saved.startedAt;
    this.ticks = saved.startTicks;
    this.current = phase;
    this.unclaimed = saved.warm === true;
    this.cutoff = saved.watchCutoffMs;
    this.extension = saved.extendedMs ?? 0;
  }

  /** Tells the session's listener of a transition. */
  protected abstract tell(event: SessionEvent): void;

  get id(): string {
    return this.record.id;
  }

  get phase(): Phase {
    return this.current;
  }

  /** When the application was started (epoch ms): start-up timeout and lifetime count from here. */
  get startedAt(): number | undefined {
    return this.started;
  }

  get startTicks(): string | undefined {
    return this.ticks;
  }

  /**
   * From its launch until its application is gone; but a warm application that is ending lets go of its GPU at
   * once: it is ended to make room (or at a stop), nobody waits for it, and the launch it yields to starts beside
   * it for the moment it takes to exit rather than making a person wait for that (issue: a warm application
   * must never make anyone wait).
   */
  get holdsGpu(): boolean {
    if (this.current === 'ending') return !this.unclaimed;
    return this.current === 'starting' || this.current === 'ready';
  }

  /** Started ahead of demand and not yet handed to anyone: hidden from the API, never idle. */
  get warm(): boolean {
    return this.unclaimed;
  }

  /** Why it was asked to end (and by whom), once it was. */
  get endedBecause(): { cause: Exclude<EndCause, 'failed'>; by?: string } | undefined {
    return this.because;
  }

  /** When its sharing was last stopped (ms since the epoch): watch tickets issued until then are refused. */
  get watchCutoffMs(): number | undefined {
    return this.cutoff;
  }

  /** When it ends and the latest it could, once its application runs (its lifetime counts from then). */
  get lifetime(): Lifetime | undefined {
    if (this.started === undefined) return undefined;
    return lifetimeOf(this.started, this.request.profile.settings, this.extension);
  }

  /** Restored without an application: waits its turn again. */
  requeue(): void {
    delete this.record.ports;
    delete this.record.pid;
    this.current = 'queued';
    this.record.state = 'pending';
  }

  /** A warm session, starting or ready, becomes `request`'s (owner, arguments, creation time, lifetime). */
  claim(request: SessionRequest): boolean {
    if (!this.unclaimed || (this.current !== 'starting' && this.current !== 'ready')) return false;
    this.unclaimed = false;
    this.request = request;
    this.record.owner = request.owner;
    this.record.arguments = request.arguments;
    this.record.createdAt = new Date().toISOString();
    if (this.current === 'ready') this.started = Date.now();
    this.extension = 0;
    this.watch.restart();
    this.emit({ type: 'claimed' });
    return true;
  }

  /**
   * Stops its sharing at `at` (ms since the epoch; a clock set back keeps the later cutoff): watch tickets
   * issued until then are refused. Returns the cutoff.
   */
  stopSharing(at: number): number {
    this.cutoff = Math.max(this.cutoff ?? at, at);
    this.emit({ type: 'sharingStopped' });
    return this.cutoff;
  }

  /** The service stops: a failed session is no longer forgotten by this one (its timer is cleared). */
  detach(): void {
    clearTimeout(this.forgetTimer);
  }

  /** Resolves once ready, failed or gone, or after `timeoutMs`, whichever comes first. */
  settled(timeoutMs: number): Promise<void> {
    if (this.isSettled()) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      (this.waiters ??= []).push(done);
    });
  }

  /**
   * The record callers get: a copy (`arguments` shared: nothing changes it). A queued session's message
   * is made here from its place in the queue (searched from the back, where new sessions are), or from
   * the places of all queued sessions that a list passes at once.
   */
  toRecord(queue: readonly SessionCore[] | ReadonlyMap<SessionCore, number>): SessionRecord {
    const result = { ...this.record };
    if (this.record.ports) result.ports = { ...this.record.ports };
    if (this.phase === 'queued') {
      const ahead =
        queue instanceof Map ? (queue.get(this) ?? -1) : (queue as readonly SessionCore[]).lastIndexOf(this);
      result.message = waitingMessage(Math.max(0, ahead));
    }
    // Only a ready session's clock means anything to a person: a starting one's restarts when it is placed.
    const lifetime = this.current === 'ready' ? this.lifetime : undefined;
    if (lifetime) {
      result.endsAt = new Date(lifetime.endsAt).toISOString();
      result.latestEndAt = new Date(lifetime.latestEndAt).toISOString();
    }
    const idle =
      this.current === 'ready'
        ? this.watch.idleEndsAt(this.request.profile.settings.idleTimeoutMs)
        : undefined;
    if (idle !== undefined) result.idleEndsAt = new Date(idle).toISOString();
    return result;
  }

  /** The part that is written to disk. */
  persisted(): PersistedSession {
    const { record, request, seq, startedAt, startTicks } = this;
    // No spread of a conditional object: V8 builds that on a slow path, and this runs for every save.
    const saved: PersistedSession = { record, request, seq, startedAt, startTicks };
    if (this.unclaimed) saved.warm = true;
    if (this.cutoff !== undefined) saved.watchCutoffMs = this.cutoff;
    if (this.extension > 0) saved.extendedMs = this.extension;
    return saved;
  }

  /** Starting → ready. */
  protected becomeReady(): boolean {
    if (this.current !== 'starting') return false;
    this.current = 'ready';
    this.record.state = 'ready';
    this.record.message = readyMessage(this.request);
    this.record.readyAt = new Date().toISOString();
    this.watch.restart();
    this.emit({ type: 'ready' });
    return true;
  }

  /** → gone: ended, removed from the queue, or forgotten after its retention. */
  protected gone(): void {
    if (this.current === 'gone') return;
    clearTimeout(this.forgetTimer);
    this.current = 'gone';
    this.emit({ type: 'gone' });
  }

  /** A failed session is forgotten once its retention (counted from its failure) is over. */
  protected forgetLater(): void {
    const failedAt = Date.parse(this.record.failedAt ?? '') || Date.now();
    const delay = Math.max(0, failedAt + this.failedRetentionMs - Date.now());
    this.forgetTimer = setTimeout(() => this.current === 'failed' && this.gone(), delay);
    this.forgetTimer.unref();
  }

  protected handle(): RunHandle {
    return { pid: this.record.pid, startTicks: this.ticks, job: this.record.job };
  }

  private isSettled(): boolean {
    return this.phase === 'ready' || this.phase === 'failed' || this.phase === 'gone';
  }

  protected emit(event: SessionEvent): void {
    this.tell(event);
    if (this.waiters && this.isSettled()) {
      for (const wake of this.waiters) wake();
      this.waiters = undefined;
    }
  }
}
