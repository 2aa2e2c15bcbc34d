/**
 * One session, an actor: it owns its whole life, from its launch through its readiness, health and idle
 * time to its end, and nothing outside writes its state. The runner (runners/runner.ts) runs its
 * application and tells it where that runs and when it ends; the manager, its listener, hears each
 * transition (to save, count and schedule) and asks it to launch, end or be claimed.
 *
 *   queued ──launch──▶ starting ──ready──▶ ready
 *   queued, starting, ready ──fail──▶ failed ──(its retention over)──▶ gone
 *   starting, ready ──end──▶ ending ──(its application stopped)──▶ gone;  queued, failed ──end──▶ gone
 *   read back after a restart: failed, or queued until `requeue` (no application) or `resume` (one runs)
 * A warm session (CONTRACT §16), started for nobody, goes through the same phases; `claim` hands it to a person.
 */
import { randomUUID } from 'node:crypto';
import type { Health } from './health-probe.ts';
import { extended, lifetimeOf, type Lifetime } from './lifetime.ts';
import type { PersistedSession } from './saved-session.ts';
import { SessionCore, type Phase, type SessionEvent } from './session-core.ts';
import { exitMessage, label, startingMessage, timeoutMessage } from './session-messages.ts';
import type { EndCause, SessionRecord } from './types.ts';
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

export type { Phase, SessionEvent };

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

export class Session extends SessionCore {
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
    phase: Phase,
    private readonly services: SessionServices,
    private readonly listener: SessionListener,
  ) {
    super(saved, phase, services.failedRetentionMs);
  }

  protected tell(event: SessionEvent): void {
    this.listener(this, event);
  }

  /** A new session, queued; a warm one (for nobody yet, see `claim`) when `warm` is set. */
  static create(
    request: SessionRequest,
    seq: number,
    services: SessionServices,
    listener: SessionListener,
    warm = false,
  ): Session {
    const record: SessionRecord = {
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
    return new Session({ record, request, seq, warm }, 'queued', services, listener);
  }

  /** A session read back from disk: failed as it was, or queued until the restore decides (`requeue`, `resume`). */
  static revive(saved: PersistedSession, services: SessionServices, listener: SessionListener): Session {
    const failed = saved.record.state === 'failed';
    const session = new Session(saved, failed ? 'failed' : 'queued', services, listener);
    if (failed) session.forgetLater();
    return session;
  }

  /** Queued → starting: its runner starts its application. Resolves once it runs (or failed to start). */
  launch(): Promise<void> {
    if (this.current !== 'queued') return this.launching ?? Promise.resolve();
    this.launches++;
    this.current = 'starting';
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

  /** Restored with its application still running: adopted; one still starting is asked at once, then watched. */
  resume(handle: RunHandle): Promise<void> {
    this.record.pid = handle.pid;
    this.record.job = handle.job;
    this.ticks = handle.startTicks;
    this.takenOver = true;
    this.current = this.record.state === 'ready' ? 'ready' : 'starting';
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
    if (this.current === 'failed' || this.current === 'ending' || this.current === 'gone') return false;
    delete this.record.ports;
    delete this.record.pid;
    this.current = 'failed';
    this.record.state = 'failed';
    this.record.message = reason;
    this.record.failedAt = new Date().toISOString();
    void this.services.runner.stop(this.id, handle);
    this.forgetLater();
    this.emit({ type: 'failed', reason });
    return true;
  }

  /**
   * Ends it: starting or ready, its application is stopped first (it keeps its GPU until then); else it goes.
   * `cause` and `by` say why, for its past record: the service's stop unless told otherwise.
   */
  end(cause: Exclude<EndCause, 'failed'> = 'shutdown', by?: string): Promise<void> {
    if (this.ending) return this.ending;
    this.because ??= by === undefined ? { cause } : { cause, by };
    if (this.current === 'queued' || this.current === 'failed') {
      this.gone();
      return Promise.resolve();
    }
    if (this.current !== 'starting' && this.current !== 'ready') return Promise.resolve();
    this.current = 'ending';
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
    if (reason && (this.current === 'ready' || this.current === 'starting')) {
      this.fail(`${label(this.request)} ${reason}${lastWords ? `; it said: ${lastWords}` : ''}`);
    } else if (this.current === 'ready' && code === 0) {
      this.services.logger.info({ sessionId: this.id }, `${label(this.request)} exited; its session ends`);
      void this.end('exited');
    } else if (this.current === 'ready' || this.current === 'starting') {
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
      if (health.ok) return !this.becomeReady();
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
