/**
 * One session, and the one place where its phase and its record change. Each transition checks that it
 * applies, writes the record that callers read, and tells the session's listener (the manager, which
 * saves, counts and schedules) what happened. Who calls a transition decides when: the manager on
 * requests, the runner on what it sees of the application, the restore on what it finds after a
 * restart of the service.
 *
 *   queued ──start──▶ starting ──ready──▶ ready       (starting ──relaunch, start──▶ starting: a port lost)
 *   queued, starting, ready ──fail──▶ failed ──(its retention over)──▶ gone
 *   starting, ready ──end──▶ ending ──(its process stopped)──▶ gone;  queued, failed ──(ended)──▶ gone
 *   read back after a restart: failed, or queued until `requeue` (no application) or `adopt` (one runs)
 * A warm session (CONTRACT §16), started for nobody, goes through the same phases; `claim` hands it to a person.
 */
import { randomUUID } from 'node:crypto';
import type { SessionPorts } from './port-pool.ts';
import type { PersistedSession } from './saved-session.ts';
import { readyMessage, startingMessage, waitingMessage } from './session-messages.ts';
import type { SessionRecord, SessionRequest } from './types.ts';

/** Finer than the API's states: `queued` and `starting` are both `pending`; `ending` keeps its GPU; `gone` is not held. */
export type Phase = 'queued' | 'starting' | 'ready' | 'ending' | 'failed' | 'gone';

/** What a session gives back when it fails, ends or starts again: its ports, and its process group. */
export interface Held {
  ports?: SessionPorts;
  pid?: number;
}

/** What happened to a session; every event but `ending` changed what is saved of it. */
export type SessionEvent =
  | { type: 'starting' }
  /** Its application was spawned: ports and process are on the record. */
  | { type: 'launched' }
  | { type: 'ready' }
  /** A warm session was handed to a person: owner, request and creation time are theirs now. */
  | { type: 'claimed' }
  /** Its sharing was stopped: watch tickets issued until `watchCutoffMs` are refused. */
  | { type: 'sharingStopped' }
  | { type: 'failed'; reason: string; released: Held }
  | { type: 'ending' }
  | { type: 'gone'; released: Held };

export type SessionListener = (session: Session, event: SessionEvent) => void;

const ignore: SessionListener = () => {};

export class Session implements PersistedSession {
  readonly record: SessionRecord;
  request: SessionRequest;
  readonly seq: number;
  /** Ports allocated and process spawned (or failed to); ending waits for it before it stops anything. */
  launching?: Promise<void>;
  ending?: Promise<void>;
  /** The runner's watch of a ready application: since when it has had no viewer, or not answered. */
  idleSince?: number;
  unhealthySince?: number;
  probing = false;
  /** When a failed session is forgotten (the manager's). */
  forgetTimer?: NodeJS.Timeout;
  // Written by the transitions only; read through the getters.
  private current: Phase;
  private started: number | undefined;
  private ticks: string | undefined;
  private launches = 0;
  private retries = 0;
  private takenOver = false;
  private unclaimed: boolean;
  private cutoff: number | undefined;
  private waiters: (() => void)[] | undefined;

  private constructor(
    saved: PersistedSession,
    phase: Phase,
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
  }

  /** A new session, queued; a warm one (for nobody yet, see `claim`) when `warm` is set. */
  static create(request: SessionRequest, seq: number, listener = ignore, warm = false): Session {
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
    return new Session({ record, request, seq, warm }, 'queued', listener);
  }

  /** A session read back from disk: failed as it was, or queued until the restore decides (see `requeue`, `adopt`). */
  static revive(saved: PersistedSession, listener = ignore): Session {
    return new Session(saved, saved.record.state === 'failed' ? 'failed' : 'queued', listener);
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

  /** Launches so far; an exit or a readiness watch of an earlier launch is ignored. */
  get attempt(): number {
    return this.launches;
  }

  /** Launches started again because another program took a port first. */
  get portRetries(): number {
    return this.retries;
  }

  /** From its launch until its process is gone. */
  get holdsGpu(): boolean {
    return this.current === 'starting' || this.current === 'ready' || this.current === 'ending';
  }

  /** Started ahead of demand and not yet handed to anyone: hidden from the API, never idle. */
  get warm(): boolean {
    return this.unclaimed;
  }

  /** When its sharing was last stopped (ms since the epoch): watch tickets issued until then are refused. */
  get watchCutoffMs(): number | undefined {
    return this.cutoff;
  }

  /** Whether its application was taken over after a restart: not our child, so watched by polling. */
  get adopted(): boolean {
    return this.takenOver;
  }

  /** Queued (or starting again after `relaunch`) → starting: returns the launch's attempt, else undefined. */
  start(): number | undefined {
    if (this.current !== 'queued' && this.current !== 'starting') return undefined;
    const attempt = ++this.launches;
    this.current = 'starting';
    this.started = Date.now();
    this.record.message = startingMessage(this.request);
    this.emit({ type: 'starting' });
    return attempt;
  }

  /** Its application runs; also while ending, so that ending finds the process it has to stop. */
  launched(ports: SessionPorts, pid: number, startTicks: string | undefined): void {
    this.record.ports = ports;
    this.record.pid = pid;
    this.ticks = startTicks;
    this.emit({ type: 'launched' });
  }

  /** Starting, its application lost a port to another program: what it held goes back; `start` follows. */
  relaunch(): Held {
    this.retries++;
    return this.release();
  }

  /** Starting → ready. */
  ready(): boolean {
    if (this.current !== 'starting') return false;
    this.current = 'ready';
    this.record.state = 'ready';
    this.record.message = readyMessage(this.request);
    this.record.readyAt = new Date().toISOString();
    this.idleSince = Date.now();
    this.emit({ type: 'ready' });
    return true;
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
    this.idleSince = Date.now();
    this.emit({ type: 'claimed' });
    return true;
  }

  /**
   * Queued, starting or ready → failed, with the reason people read. Its ports and process go back to
   * the listener; `released` overrides them for a restore that knows better what is really this session's.
   */
  fail(reason: string, released?: Held): boolean {
    if (this.current === 'failed' || this.current === 'ending' || this.current === 'gone') return false;
    const held = this.release();
    this.current = 'failed';
    this.record.state = 'failed';
    this.record.message = reason;
    this.record.failedAt = new Date().toISOString();
    this.emit({ type: 'failed', reason, released: released ?? held });
    return true;
  }

  /** Starting or ready → ending: it keeps its GPU and ports until `gone`. */
  end(): boolean {
    if (this.current !== 'starting' && this.current !== 'ready') return false;
    this.current = 'ending';
    this.emit({ type: 'ending' });
    return true;
  }

  /** → gone: ended, removed from the queue, or forgotten after its retention. Gives back its ports. */
  gone(): void {
    if (this.current === 'gone') return;
    this.current = 'gone';
    this.emit({ type: 'gone', released: { ports: this.record.ports } });
  }

  /** Restored without an application: waits its turn again. */
  requeue(): void {
    this.release();
    this.current = 'queued';
    this.record.state = 'pending';
  }

  /** Restored with its application still running (`pid`, which may have been found by its session id). */
  adopt(pid: number, startTicks: string | undefined): void {
    this.record.pid = pid;
    this.ticks = startTicks;
    this.takenOver = true;
    this.current = this.record.state === 'ready' ? 'ready' : 'starting';
    this.idleSince = Date.now();
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
  toRecord(queue: readonly Session[] | ReadonlyMap<Session, number>): SessionRecord {
    const result = { ...this.record };
    if (this.record.ports) result.ports = { ...this.record.ports };
    if (this.phase === 'queued') {
      const ahead =
        queue instanceof Map ? (queue.get(this) ?? -1) : (queue as readonly Session[]).lastIndexOf(this);
      result.message = waitingMessage(Math.max(0, ahead));
    }
    return result;
  }

  /** The part that is written to disk. */
  persisted(): PersistedSession {
    const { record, request, seq, startedAt, startTicks } = this;
    // No spread of a conditional object: V8 builds that on a slow path, and this runs for every save.
    const saved: PersistedSession = { record, request, seq, startedAt, startTicks };
    if (this.unclaimed) saved.warm = true;
    if (this.cutoff !== undefined) saved.watchCutoffMs = this.cutoff;
    return saved;
  }

  private release(): Held {
    const held = { ports: this.record.ports, pid: this.record.pid };
    delete this.record.ports;
    delete this.record.pid;
    return held;
  }

  private isSettled(): boolean {
    return this.phase === 'ready' || this.phase === 'failed' || this.phase === 'gone';
  }

  private emit(event: SessionEvent): void {
    this.listener(this, event);
    if (this.waiters && this.isSettled()) {
      for (const wake of this.waiters) wake();
      this.waiters = undefined;
    }
  }
}
