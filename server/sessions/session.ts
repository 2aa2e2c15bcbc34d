/**
 * One session, an actor: it owns its whole life, from its launch through its readiness, health and idle
 * time to its end, and nothing outside writes its state. The runner (runners/runner.ts) runs its
 * application and tells it where that runs and when it ends; the manager, its listener, hears each
 * transition (to save, count and schedule) and asks it to launch, end or be claimed.
 *
 * Its phases and the steps between them are one table, `NEXT_PHASES`, and one method, `to`, is the only
 * writer of its phase: a step the table does not hold throws. A session read back after a restart is failed
 * as it was, or queued until `requeue` (no application runs) or `resume` (one runs: starting or ready at once).
 * A warm session (CONTRACT §16), started for nobody, goes through the same phases; `claim` hands it to a person.
 */
import { randomUUID } from 'node:crypto';
import type { Health } from './health-probe.ts';
import { extended, lifetimeOf, type Lifetime } from './lifetime.ts';
import type { PersistedSession } from './saved-session.ts';
import {
  exitMessage,
  label,
  readyMessage,
  startingMessage,
  timeoutMessage,
  waitingMessage,
} from './session-messages.ts';
import { HealthWatch } from './session-watch.ts';
import type { EndCause, SessionRecord, SessionState } from './types.ts';
import type { ViewerTickets } from '../auth/viewer-tickets.ts';
import { DomainError } from '../errors.ts';
import type {
  Placement,
  RunExit,
  RunHandle,
  RunObserver,
  Runner,
  SessionLogger,
  SessionRequest,
} from '../runners/runner.ts';
import { DEFAULT_FILES_MB } from '../../protocol/files.ts';

/** Finer than the API's states: `queued` and `starting` are both `pending`; `ending` keeps its GPU; `gone` is not held. */
export type Phase = 'queued' | 'starting' | 'ready' | 'ending' | 'failed' | 'gone';

/**
 * The phases each phase may go to, and nothing else:
 *
 *   queued ──launch──▶ starting ──ready──▶ ready
 *   queued ──resume──▶ starting or ready (its application ran on while the service was down)
 *   queued, starting, ready ──fail──▶ failed ──(its retention over)──▶ gone
 *   starting, ready ──end──▶ ending ──(its application stopped)──▶ gone;  queued, failed ──end──▶ gone
 */
export const NEXT_PHASES = {
  queued: ['starting', 'ready', 'failed', 'gone'],
  starting: ['ready', 'ending', 'failed'],
  ready: ['ending', 'failed'],
  ending: ['gone'],
  failed: ['gone'],
  gone: [],
} as const satisfies Record<Phase, readonly Phase[]>;

/** The record of a session just asked for: pending, with a new id, as the API first shows it. */
export function pendingRecord(request: SessionRequest): SessionRecord {
  return {
    id: randomUUID(),
    owner: request.owner,
    appId: request.app.id,
    appName: request.app.name,
    version: request.version,
    profileId: request.profile.id,
    arguments: request.arguments,
    state: 'pending',
    message: '',
    createdAt: new Date().toISOString(),
  };
}

/** Whether the table lets a session go from `from` to `to`. */
export function mayMove(from: Phase, to: Phase): boolean {
  return (NEXT_PHASES[from] as readonly Phase[]).includes(to);
}

/** The state callers see in each phase; `ending` and `gone` keep the one they had. */
const STATE_OF: Partial<Record<Phase, SessionState>> = {
  queued: 'pending',
  starting: 'pending',
  ready: 'ready',
  failed: 'failed',
};

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

export type SessionListener = (session: Session, event: SessionEvent) => void;

/** What every session of a service works with. */
export interface SessionServices {
  runner: Runner;
  /** Signs tickets: the application's secret at launch, the health probe's own watch ticket. */
  tickets(): ViewerTickets;
  logger: SessionLogger;
  /** Where the application is asked for its health when no runner placed it (default address). */
  publicHost: string;
  /** Origins whose pages may connect to the application. */
  viewerOrigins: readonly string[];
  /** Asks an application for its health (health-probe.ts): `ticket` lets it tell its viewers. */
  probe(host: string, port: number, ticket?: string): Promise<Health>;
  /** How often a starting application is asked whether it is ready. */
  readyPollMs: number;
  /** A failed session is kept (answering 410) this long, then gone. */
  failedRetentionMs: number;
}

export class Session implements PersistedSession {
  readonly record: SessionRecord;
  request: SessionRequest;
  readonly seq: number;
  /** Written by `to` alone. */
  private current: Phase;
  private started: number | undefined;
  private ticks: string | undefined;
  private unclaimed: boolean;
  private cutoff: number | undefined;
  /** What it was extended by, beyond its profile's initial lifetime (lifetime.ts). */
  private extension: number;
  /** Why it was asked to end, and by whom: the first ask counts. */
  private because: { cause: Exclude<EndCause, 'failed'>; by?: string } | undefined;
  private forgetTimer: NodeJS.Timeout | undefined;
  private readonly watch = new HealthWatch();
  private waiters: (() => void)[] | undefined;
  private launches = 0;
  private takenOver = false;
  private launching: Promise<void> | undefined;
  /** Whether this launch's application was placed yet (its lifetime counts from then). */
  private placedOnce = false;
  private ending: Promise<void> | undefined;
  private probing = false;
  /** Bumped by each placement: a readiness watch of an earlier one stops. */
  private placements = 0;
  /** The extension under way: the next waits for it, so that each counts from the end the last one made. */
  private extending: Promise<unknown> = Promise.resolve();

  private constructor(
    saved: PersistedSession,
    phase: 'queued' | 'failed',
    private readonly services: SessionServices,
    private readonly listener: SessionListener,
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

  /** A new session, queued; a warm one (for nobody yet, see `claim`) when `warm` is set. */
  static create(
    request: SessionRequest,
    seq: number,
    services: SessionServices,
    listener: SessionListener,
    warm = false,
  ): Session {
    const record = pendingRecord(request);
    return new Session({ record, request, seq, warm }, 'queued', services, listener);
  }

  /** A session read back from disk: failed as it was, or queued until the restore decides (`requeue`, `resume`). */
  static revive(saved: PersistedSession, services: SessionServices, listener: SessionListener): Session {
    const failed = saved.record.state === 'failed';
    const session = new Session(saved, failed ? 'failed' : 'queued', services, listener);
    if (failed) session.forgetLater();
    return session;
  }

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
    return this.running;
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

  /** Restored without an application (it stays queued): waits its turn again, as pending. */
  requeue(): void {
    delete this.record.ports;
    delete this.record.pid;
    this.record.state = 'pending';
  }

  /** A warm session, starting or ready, becomes `request`'s (owner, arguments, creation time, lifetime). */
  claim(request: SessionRequest): boolean {
    if (!this.unclaimed || !this.running) return false;
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
   * The record callers get: a copy (`arguments` shared: nothing changes it). A queued session's message is
   * made here from its place in `queue`, searched from the back, where new sessions are.
   */
  toRecord(queue: readonly Session[]): SessionRecord {
    const result = { ...this.record };
    if (this.record.ports) result.ports = { ...this.record.ports };
    if (this.current === 'queued') result.message = waitingMessage(Math.max(0, queue.lastIndexOf(this)));
    // Only a ready session's clocks mean anything to a person: a starting one's restarts when it is placed.
    if (this.current !== 'ready') return result;
    const lifetime = this.lifetime;
    if (lifetime) {
      result.endsAt = new Date(lifetime.endsAt).toISOString();
      result.latestEndAt = new Date(lifetime.latestEndAt).toISOString();
    }
    const idle = this.watch.idleEndsAt(this.request.profile.settings.idleTimeoutMs);
    if (idle !== undefined) result.idleEndsAt = new Date(idle).toISOString();
    return result;
  }

  /** The part that is written to disk. */
  persisted(): PersistedSession {
    const { record, request, seq, startedAt, startTicks } = this;
    return {
      record,
      request,
      seq,
      startedAt,
      startTicks,
      ...(this.unclaimed ? { warm: true } : {}),
      ...(this.cutoff !== undefined ? { watchCutoffMs: this.cutoff } : {}),
      ...(this.extension > 0 ? { extendedMs: this.extension } : {}),
    };
  }

  /** Queued → starting: its runner starts its application. Resolves once it runs (or failed to start). */
  launch(): Promise<void> {
    if (!mayMove(this.current, 'starting')) return this.launching ?? Promise.resolve();
    this.launches++;
    this.to('starting');
    this.started = Date.now();
    this.placedOnce = false;
    this.record.message = startingMessage(this.request);
    this.emit({ type: 'starting' });
    const { runner, tickets, viewerOrigins } = this.services;
    const settings = this.request.profile.settings;
    const spec = {
      sessionId: this.id,
      request: this.request,
      secret: tickets().secretOf(this.id),
      // Requests saved by an older service lack the viewer limit.
      environment: {
        STREAMGATE_ALLOWED_ORIGINS: viewerOrigins.join(','),
        STREAMGATE_MAX_VIEWERS: String(settings.maxViewers ?? 8),
        // The size of the session's folder of files (protocol/files.ts), which the application keeps.
        STREAMGATE_FILES_MB: String(settings.filesMb ?? DEFAULT_FILES_MB),
      },
    };
    this.launching = runner
      .start(spec, this.observer())
      .catch((error: Error) => void this.fail(error.message));
    return this.launching;
  }

  /** Restored with its application still running: adopted; one still starting is asked at once, then watched. */
  resume(handle: RunHandle): Promise<void> {
    this.record.pid = handle.pid;
    this.record.job = handle.job;
    this.ticks = handle.startTicks;
    this.takenOver = true;
    this.to(this.record.state === 'ready' ? 'ready' : 'starting');
    this.placedOnce = this.record.ports !== undefined;
    this.watch.restart();
    // The runner tells it of its application as it would of a new one (where it can: a job's end, its placement).
    this.services.runner.watch?.(this.id, this.observer(), this.request);
    const asking = this.current === 'starting' && this.record.ports !== undefined;
    return asking ? this.watchReadiness(undefined, this.started) : Promise.resolve();
  }

  /**
   * Queued, starting or ready → failed, with the reason people read. Its runner stops what is left of its
   * application: `handle` overrides what to stop for a restore that knows better (a pid that is another
   * process's now is never signalled).
   */
  fail(reason: string, handle: RunHandle = this.handle()): boolean {
    if (!mayMove(this.current, 'failed')) return false;
    delete this.record.ports;
    delete this.record.pid;
    this.to('failed');
    this.record.message = reason;
    this.record.failedAt = new Date().toISOString();
    void this.services.runner.stop(this.id, handle);
    this.forgetLater();
    this.emit({ type: 'failed', reason });
    return true;
  }

  /**
   * Ends it: starting or ready, its application is stopped first (it keeps its GPU until then); queued or
   * failed, it goes at once. `cause` and `by` say why, for its past record: the service's stop unless told otherwise.
   */
  end(cause: Exclude<EndCause, 'failed'> = 'shutdown', by?: string): Promise<void> {
    if (this.ending) return this.ending;
    this.because ??= by === undefined ? { cause } : { cause, by };
    // Nothing of a queued or failed session runs: it goes at once.
    if (this.current === 'queued' || this.current === 'failed') {
      this.gone();
      return Promise.resolve();
    }
    if (!mayMove(this.current, 'ending')) return Promise.resolve();
    this.to('ending');
    this.emit({ type: 'ending' });
    this.ending = (async () => {
      await this.launching;
      await this.services.runner.stop(this.id, this.handle());
      this.services.logger.info({ sessionId: this.id }, `Ended ${label(this.request)}`);
      this.gone();
    })();
    return this.ending;
  }

  /** One look at a ready session: its lifetime, whether its application runs and answers, and its viewers. Never rejects. */
  check(): Promise<void> {
    return this.look().catch((error: Error) =>
      this.services.logger.error({ sessionId: this.id, err: error.message }, 'Session check failed'),
    );
  }

  /**
   * A ready session runs `minutes` longer, never past its profile's maximum lifetime (lifetime.ts); a runner
   * that bounds its application's time too (a Slurm job's time limit) is asked first, and its refusal is a
   * 409 in its words. Resolves with the new lifetime, or why there is nothing left to extend.
   */
  extend(minutes: number): Promise<Lifetime | { refused: string }> {
    const next = this.extending.then(() => this.extendNow(minutes));
    this.extending = next.catch(() => undefined);
    return next;
  }

  /** The one writer of the phase: a step that `NEXT_PHASES` does not hold is a bug, and throws. */
  private to(next: Phase): void {
    if (!mayMove(this.current, next))
      throw new Error(`A session cannot go from ${this.current} to ${next} (session ${this.id}).`);
    this.current = next;
    const state = STATE_OF[next];
    if (state) this.record.state = state;
  }

  /** Its application was launched and is not being stopped: it runs or is starting. */
  private get running(): boolean {
    return this.current === 'starting' || this.current === 'ready';
  }

  /** Starting → ready. */
  private becomeReady(): void {
    this.to('ready');
    this.record.message = readyMessage(this.request);
    this.record.readyAt = new Date().toISOString();
    this.watch.restart();
    this.emit({ type: 'ready' });
  }

  /** Queued, failed or ending → gone: ended, removed from the queue, or forgotten after its retention. */
  private gone(): void {
    clearTimeout(this.forgetTimer);
    this.to('gone');
    this.emit({ type: 'gone' });
  }

  /** A failed session is forgotten once its retention (counted from its failure) is over. */
  private forgetLater(): void {
    const failedAt = Date.parse(this.record.failedAt ?? '') || Date.now();
    const delay = Math.max(0, failedAt + this.services.failedRetentionMs - Date.now());
    this.forgetTimer = setTimeout(() => this.current === 'failed' && this.gone(), delay);
    this.forgetTimer.unref();
  }

  private handle(): RunHandle {
    return { pid: this.record.pid, startTicks: this.ticks, job: this.record.job };
  }

  private isSettled(): boolean {
    return this.current === 'ready' || this.current === 'failed' || this.current === 'gone';
  }

  /** Tells the listener of a change, then wakes those waiting for it to settle, once it has. */
  private emit(event: SessionEvent): void {
    this.listener(this, event);
    if (this.waiters && this.isSettled()) {
      for (const wake of this.waiters) wake();
      this.waiters = undefined;
    }
  }

  /** What the runner tells of this launch's application; what it tells of an earlier launch is ignored. */
  private observer(): RunObserver {
    const attempt = this.launches;
    return {
      placed: (placement, announced) => attempt === this.launches && this.placed(placement, announced),
      exited: (exit) => attempt === this.launches && this.exited(exit),
      waiting: (why) => attempt === this.launches && this.waiting(why),
      starting: () => attempt === this.launches && this.current === 'starting',
    };
  }

  private async look(): Promise<void> {
    if (this.current !== 'ready' || this.probing) return;
    const { settings } = this.request.profile;
    const { logger, runner } = this.services;
    if (Date.now() >= (this.lifetime?.endsAt ?? Infinity)) {
      logger.info(
        { sessionId: this.id },
        `${label(this.request)} reached the end of its lifetime; ending it`,
      );
      return this.end('lifetime');
    }
    if (this.takenOver && !runner.isRunning(this.handle()))
      return void this.fail(`${label(this.request)} exited`);
    const ports = this.record.ports;
    if (!ports) return;
    this.probing = true;
    // Only a ticket holder hears the viewer count that idle time is measured by.
    const health = await this.services
      .tickets()
      .issue(this.id, 'watch', 30)
      .then(({ ticket }) => this.services.probe(this.probeHost(), ports.signaling, ticket))
      .finally(() => (this.probing = false));
    if (this.current !== 'ready') return;
    const limits = { idleTimeoutMs: settings.idleTimeoutMs, unresponsiveMs: settings.startupTimeoutMs };
    const verdict = this.watch.judge(health, limits, this.unclaimed);
    if (verdict === 'unresponsive') this.fail(`${label(this.request)} stopped answering`);
    if (verdict === 'idle') {
      logger.info({ sessionId: this.id }, `${label(this.request)} had no viewer for a while; ending it`);
      await this.end('idle');
    }
  }

  private async extendNow(minutes: number): Promise<Lifetime | { refused: string }> {
    if (this.current !== 'ready' || this.started === undefined)
      throw new DomainError(409, 'The session is not running yet: its lifetime starts once it does.');
    const started = this.started;
    const { settings } = this.request.profile;
    const next = extended(started, settings, this.extension, minutes);
    if ('refused' in next) return next;
    const lifetime = lifetimeOf(started, settings, next.extendedMs);
    try {
      await this.services.runner.extend?.(this.id, this.handle(), lifetime.endsAt - started);
    } catch (error) {
      throw new DomainError(409, (error as Error).message, {}, { cause: error });
    }
    // It ended, or was claimed anew, while the runner was asked.
    if (this.current !== 'ready' || this.started !== started)
      throw new DomainError(404, 'No session has this id; it may have ended.');
    const given = Math.round((next.extendedMs - this.extension) / 60_000);
    this.extension = next.extendedMs;
    this.services.logger.info(
      { sessionId: this.id, endsAt: new Date(lifetime.endsAt).toISOString() },
      `${label(this.request)} was extended by ${given} min`,
    );
    this.emit({ type: 'extended' });
    return lifetime;
  }

  /** Its application runs at `placement` (also while ending, so that the end finds what it has to stop). */
  private placed(placement: Placement, announced: Promise<void>): void {
    this.record.ports = placement.ports;
    this.record.pid = placement.handle.pid;
    this.record.job = placement.handle.job;
    this.record.host = placement.host;
    this.ticks = placement.handle.startTicks;
    // Its lifetime counts from when it first runs, not from its wait in a scheduler's queue.
    if (!this.placedOnce) this.started = Date.now();
    this.placedOnce = true;
    this.emit({ type: 'launched' });
    // Its start-up time counts from its placement too: a wait in a queue is not a slow start.
    if (this.current === 'starting') void this.watchReadiness(announced, Date.now());
  }

  /** Its application waits for a place to run (a job in a scheduler's queue): its message says why. */
  private waiting(why: string): void {
    if (this.current !== 'starting' || this.record.message === why) return;
    this.record.message = why;
    this.emit({ type: 'waiting' });
  }

  /** Its application ended: a person who quit it ends the session; any other end fails it, in words. */
  private exited({ code, signal, lastWords, reason }: RunExit): void {
    if (!this.running) return;
    if (reason) {
      this.fail(`${label(this.request)} ${reason}${lastWords ? `; it said: ${lastWords}` : ''}`);
    } else if (this.current === 'ready' && code === 0) {
      this.services.logger.info({ sessionId: this.id }, `${label(this.request)} exited; its session ends`);
      void this.end('exited');
    } else {
      this.fail(exitMessage(this.request, code, signal, this.current === 'starting', lastWords));
    }
  }

  /**
   * The one path to ready: asks the application at once and then every `readyPollMs` (sooner once it
   * `announced` that it listens: the probe still decides, CONTRACT §11) until it answers, its start-up time
   * is over, or another placement or phase makes the question moot. Resolves after the first answer.
   */
  private watchReadiness(announced: Promise<void> | undefined, from = Date.now()): Promise<void> {
    const placement = ++this.placements;
    let wake: Promise<void> | undefined = announced?.then(() => void (wake = undefined));
    const deadline = from + this.request.profile.settings.startupTimeoutMs;
    const asking = () => this.current === 'starting' && this.placements === placement && this.record.ports;
    const ask = async (): Promise<boolean> => {
      const ports = this.record.ports;
      if (!ports || !asking()) return false;
      if (this.takenOver && !this.services.runner.isRunning(this.handle()))
        return !this.fail(`${label(this.request)} exited before it was ready`);
      const health = await this.services.probe(this.probeHost(), ports.signaling);
      if (!asking()) return false;
      if (health.ok) {
        this.becomeReady();
        return false;
      }
      if (Date.now() >= deadline) return !this.fail(timeoutMessage(this.request));
      return true;
    };
    const first = ask();
    void first.then(async (more) => {
      while (more) {
        const pause = new Promise<void>((resolve) => setTimeout(resolve, this.services.readyPollMs));
        await (wake ? Promise.race([pause, wake]) : pause);
        more = await ask();
      }
    });
    return first.then(() => undefined);
  }

  private probeHost(): string {
    return this.record.host ?? this.services.publicHost;
  }
}
