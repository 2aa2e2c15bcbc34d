/**
 * The session machinery behind /stream. The manager queues and grants capacity: a first-in-first-out queue
 * in front of the runner's slots (GPUs), the sessions it holds (session.ts, each an actor that owns its
 * life; holdings.ts counts over them when asked) and their durable state. The runner (runners/runner.ts) runs the
 * applications; the restore (session-restore.ts) takes over survivors of a restart; the warm pool
 * (warm-pool.ts) is a policy on top that keeps some started ahead of demand.
 */
import { ViewerTickets } from '../auth/viewer-tickets.ts';
import type { IssuedTicket, TicketGrant, TicketScope } from '../../protocol/viewer-ticket.ts';
import { DomainError } from '../errors.ts';
import type { Runner, SessionLogger, SessionRequest } from '../runners/runner.ts';
import { capacityReport } from './capacity.ts';
import type { CatalogProfile } from '../catalog/model.ts';
import { probeHealth } from './health-probe.ts';
import { Holdings } from './holdings.ts';
import { resolveOptions, type ResolvedOptions, type SessionManagerOptions } from './options.ts';
import { openPrivateDir } from '../private-files.ts';
import { sessionEncoder, type PersistedSession } from './saved-session.ts';
import { Session, type SessionEvent, type SessionServices } from './session.ts';
import { endMessage, label } from './session-messages.ts';
import { EndedSessions, endedRecord } from './ended-sessions.ts';
import { restoreSessions } from './session-restore.ts';
import { ServiceLock } from './service-lock.ts';
import { issueTicket, stopSharing, tellSharingStopped, type Sharing } from './sharing.ts';
import { StateFileRepository } from '../state/state-file-repository.ts';
import type { SessionRepository } from '../state/session-repository.ts';
import { WarmPool } from './warm-pool.ts';
import {
  QueueFullError,
  StateWriteError,
  type EndCause,
  type EndedSession,
  type SessionManager,
  type SessionRecord,
} from './types.ts';

const silent: SessionLogger = { info: () => {}, warn: () => {}, error: () => {} };

/** Builds the manager over the runner it is given (`options.runner`); nothing runs until `start()`. */
export function createSessionManager(
  options: SessionManagerOptions,
  logger: SessionLogger = silent,
): SessionManager {
  return new Manager(resolveOptions(options), logger, options.runner);
}

class Manager implements SessionManager {
  private readonly held: Holdings;
  private readonly store: SessionRepository<PersistedSession>;
  /** Sessions that ended or failed, for the list of past sessions (CONTRACT §22). */
  private readonly past: EndedSessions;
  private readonly endListeners: ((ended: EndedSession) => void)[] = [];
  private readonly lock: ServiceLock;
  private readonly warmPool: WarmPool;
  private readonly services: SessionServices;
  private tickets: ViewerTickets | null;
  private seq = 0;
  private stopped = false;
  /** While saved sessions are read back, nothing starts: adopted ones must hold their GPUs first. */
  private restoring = false;
  private ticker: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: ResolvedOptions,
    private readonly logger: SessionLogger,
    private readonly runner: Runner,
  ) {
    this.held = new Holdings(runner.slots(), options.userGpuShare);
    this.lock = new ServiceLock(options.dataDir);
    this.tickets = options.tickets ?? null;
    this.store = new StateFileRepository<PersistedSession, Session>(options.dataDir, {
      items: () => this.held.sessions,
      key: (saved) => saved.record.id,
      encode: sessionEncoder(),
      onWriteError: (error) => logger.error({ err: error.message }, 'Could not save the session state'),
    });
    this.past = new EndedSessions(options.dataDir, {
      onError: (error) => logger.error({ err: error.message }, 'Could not save the ended sessions'),
    });
    this.services = {
      runner,
      tickets: () => {
        if (!this.tickets) throw new Error('The session manager has not started.');
        return this.tickets;
      },
      logger,
      publicHost: options.publicHost,
      viewerOrigins: options.viewerOrigins,
      probe: (host, port, ticket) => probeHealth(host, port, 1_000, ticket),
      readyPollMs: options.readyPollMs,
      failedRetentionMs: options.failedRetentionMs,
    };
    // Where the runner refuses a launch, none is kept warm either.
    const targets = options.warm.filter(
      ({ target }) => !runner.refuses({ ...target, owner: '', arguments: {} }),
    );
    this.warmPool = new WarmPool(targets, {
      sessions: () => this.held.sessions.values(),
      hasFreeGpu: () => this.held.freeGpus() > 0,
      startWarm: (request) => void this.add(request, true).launch(),
      end: (id) => this.end(id),
    });
  }

  async start(): Promise<void> {
    // The service's keys and state are its own alone.
    await openPrivateDir(this.options.dataDir);
    await this.lock.acquire();
    this.tickets ??= await ViewerTickets.open(this.options.dataDir);
    await this.runner.open();
    // Before the restore, which may find sessions that failed while the service was down.
    await this.past
      .load()
      .catch((error: Error) =>
        this.logger.error(
          { err: error.message },
          'Could not read the ended sessions; the list starts afresh',
        ),
      );
    const loaded = await this.store.load();
    this.restoring = true;
    const restored = restoreSessions(loaded, {
      runner: this.runner,
      logger: this.logger,
      revive: (saved) => {
        const session = Session.revive(saved, this.services, (s, event) => this.onEvent(s, event));
        // Before the first pump: warm sessions that run on are counted, not started again.
        this.held.add(session);
        return session;
      },
      failedRetentionMs: this.options.failedRetentionMs,
    });
    this.held.queue.push(...restored.queued);
    this.seq = Math.max(this.seq, restored.lastSeq);
    this.restoring = false;
    await restored.asked;
    await this.runner.sweep((id) => {
      const session = this.held.sessions.get(id);
      return session !== undefined && session.phase !== 'failed';
    });
    this.pump();
    this.changed('all');
    this.ticker = setInterval(() => {
      for (const session of this.held.sessions.values()) void session.check();
      // Warm applications held back after a failure are started again once their wait is over.
      this.pump();
    }, this.options.healthPollMs);
    this.ticker.unref();
  }

  async create(request: SessionRequest): Promise<SessionRecord> {
    if (this.stopped) throw new Error('The session service is stopping.');
    const refusal = this.runner.refuses(request);
    if (refusal) throw new DomainError(503, refusal);
    // A warm application is a GPU too: not for someone who holds their share already.
    const { queue, share } = this.held;
    const mayStart = share.allows(request);
    const warm = mayStart ? this.warmPool.claim(request) : undefined;
    if (warm) return this.accepted(warm);
    // With a share, whatever waits while a GPU is free is held back by its owner's share (pump).
    const startsNow = mayStart && (queue.length === 0 || share.share !== null) && this.held.freeGpus() > 0;
    if (!startsNow && queue.length >= this.options.queueLimit)
      throw new QueueFullError(this.options.retryAfterSeconds);
    const session = this.add(request, false);
    queue.push(session);
    this.pump();
    return this.accepted(session);
  }

  get(id: string): SessionRecord | undefined {
    const session = this.held.visible(id);
    return session && this.held.recordOf(session);
  }

  list(owner: string | null, offset: number, limit: number) {
    return this.held.list(owner, offset, limit);
  }

  end(id: string, by?: string): Promise<void> {
    const session = this.held.sessions.get(id);
    if (!session) return Promise.resolve();
    return by === undefined ? session.end() : session.end('deleted', by);
  }

  endedSessions(owner: string | null, offset: number, limit: number) {
    return this.past.list(owner, offset, limit);
  }

  onEnded(listener: (ended: EndedSession) => void): void {
    this.endListeners.push(listener);
  }

  activeCount(owner: string): number {
    return this.held.activeCount(owner);
  }

  async issueTicket(
    id: string,
    scope: TicketScope,
    ttlS?: number,
    name?: string,
  ): Promise<IssuedTicket | undefined> {
    const session = this.held.visible(id);
    return session && this.tickets ? issueTicket(session, this.tickets, scope, ttlS, name) : undefined;
  }

  async checkTicket(id: string, ticket: string): Promise<TicketGrant | null> {
    return this.liveSession(id) && this.tickets ? this.tickets.verify(id, ticket) : null;
  }

  async filesTicket(id: string): Promise<string | undefined> {
    return this.liveSession(id) && this.tickets ? this.tickets.filesTicket(id) : undefined;
  }

  /** Whether `id` is a session people may reach: pending or ready. */
  private liveSession(id: string): boolean {
    const phase = this.held.visible(id)?.phase;
    return phase === 'queued' || phase === 'starting' || phase === 'ready';
  }

  async stopSharing(id: string): Promise<{ watchersDropped: number } | undefined> {
    const session = this.held.visible(id);
    return session && this.tickets ? stopSharing(session, this.sharing()) : undefined;
  }

  async extend(id: string, minutes: number): Promise<SessionRecord | { refused: string } | undefined> {
    const session = this.held.visible(id);
    if (!session) return undefined;
    const extended = await session.extend(minutes);
    if ('refused' in extended) return extended;
    // An extended end that a restart forgot would end the session early: saved before it is answered.
    await this.store.save(session.id).catch((error: Error) => {
      throw new StateWriteError(error);
    });
    return this.held.recordOf(session);
  }

  counts() {
    return this.held.counts();
  }

  capacity(profiles: readonly CatalogProfile[] = []) {
    const { sessions, queue } = this.held;
    return capacityReport(this.runner, sessions.values(), queue, this.warmPool.byProfile(), profiles);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.ticker);
    const { sessions, queue } = this.held;
    for (const session of queue.splice(0)) {
      sessions.delete(session.id);
      this.ended(session, 'shutdown');
    }
    const live = [...sessions.values()].filter((session) => session.phase !== 'failed');
    await Promise.all(live.map((session) => session.end()));
    await this.runner.close();
    // Failed sessions are saved as they are, and forgotten by the next service once their retention is over.
    for (const session of sessions.values()) session.detach();
    this.changed('all');
    await this.store.flush();
    await this.past.flush();
    await this.lock.release();
  }

  /** A new session, held (not yet queued or launched). */
  private add(request: SessionRequest, warm: boolean): Session {
    const session = Session.create(request, ++this.seq, this.services, (s, e) => this.onEvent(s, e), warm);
    this.held.add(session);
    this.changed(session);
    return session;
  }

  /** What the manager does about a session's transition: schedule, save. */
  private onEvent(session: Session, event: SessionEvent): void {
    const sessionId = session.id;
    switch (event.type) {
      case 'ending':
        // Nothing saved changes until the application is gone.
        return;
      case 'ready':
        if (session.warm) this.warmPool.ready(session);
        this.logger.info({ sessionId, warm: session.warm || undefined }, session.record.message);
        // Its sharing was stopped before its application could be told.
        if (session.watchCutoffMs !== undefined) void tellSharingStopped(session, this.sharing());
        break;
      case 'claimed':
        this.logger.info({ sessionId }, `Handed a warm ${label(session.request)} to its session`);
        break;
      case 'failed':
        this.logger.warn({ sessionId, warm: session.warm || undefined }, event.reason);
        if (session.warm) this.warmPool.failed(session);
        this.ended(session, 'failed', event.reason);
        this.pump();
        break;
      case 'gone': {
        this.held.drop(session);
        // A failed session was recorded when it failed; it goes now that its retention is over, or was removed.
        const because = session.endedBecause;
        if (session.record.state !== 'failed' && because)
          this.ended(session, because.cause, undefined, because.by);
        this.pump();
        break;
      }
    }
    this.changed(session);
  }

  /** A change of a session (or all) goes into the next write, awaited by nobody but create(). */
  private changed(session: Session | 'all'): void {
    this.store.note(session === 'all' ? 'all' : session.id);
  }

  /**
   * Starts queued sessions while GPUs are free, in queue order but for those whose owners hold their share;
   * then warm ones give way to the sessions a GPU would start, or are filled up.
   */
  private pump(): void {
    if (this.stopped || this.restoring) return;
    this.launchQueued();
    const waiting = this.held.waiting();
    if (waiting === 0) return this.warmPool.fill();
    // A warm application given up lets go of its GPU at once: what waited for it starts now, not once it exited.
    this.warmPool.giveWay(waiting);
    this.launchQueued();
  }

  /** Launches queued sessions while GPUs are free, in queue order but for those whose owners hold their share. */
  private launchQueued(): void {
    const { queue, share } = this.held;
    const free = this.held.freeGpus();
    if (queue.length === 0 || free === 0) return;
    for (const session of share.pick(queue, free)) {
      queue.splice(queue.indexOf(session), 1);
      void session.launch();
    }
  }

  /** Keeps the past record of a session that ended or failed, and tells the listeners; warm ones are nobody's. */
  private ended(session: Session, cause: EndCause, failure?: string, by?: string): void {
    if (session.warm) return;
    const { record, request } = session;
    const ended = endedRecord(record, {
      at: (cause === 'failed' && record.failedAt) || new Date().toISOString(),
      cause,
      reason: cause === 'failed' ? (failure ?? record.message) : endMessage(request, cause, by),
      by,
    });
    this.past.add(ended);
    for (const listener of this.endListeners) {
      try {
        listener(ended);
      } catch (error) {
        this.logger.error({ err: (error as Error).message }, 'A listener of ended sessions failed');
      }
    }
  }

  /** What telling an application of a stop of sharing takes. */
  private sharing(): Sharing {
    return { tickets: this.services.tickets(), publicHost: this.options.publicHost, logger: this.logger };
  }

  /** A session just created or claimed: on disk before it is answered, then given a short wait for readiness. */
  private async accepted(session: Session): Promise<SessionRecord> {
    try {
      await this.store.save(session.id);
    } catch (error) {
      await session.end('unsaved');
      throw new StateWriteError(error as Error);
    }
    // A session queued behind a full set of GPUs cannot be ready within a wait meant for a fast
    // start: answering pending at once is honest, and spares a timer per request.
    if (this.options.readyWaitMs > 0 && session.phase !== 'queued')
      await session.settled(this.options.readyWaitMs);
    return this.held.recordOf(session);
  }
}
