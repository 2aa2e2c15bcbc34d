/**
 * The Slurm runner (CONTRACT §18, STREAMGATE_RUNNER=slurm): each session is one job named
 * `streamgate-<session id>` (a batch job, or an srun step with STREAMGATE_SLURM_LAUNCH=step), submitted with the profile's GPUs, partition and limits and a time limit equal
 * to the session's lifetime. The job (slurm-job.ts) runs the application on its node, sandboxed, and writes
 * where it listens into the shared directory; this runner follows the jobs (one squeue for all, every
 * `pollMs`) and tells each session what became of its job. Slurm's queue is the queue: slots are unbounded
 * here, and a pending job is a pending session whose message gives Slurm's reason in words.
 */
import { existsSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { appBundles, appEntry } from './app-bundles.ts';
import { repoRoot } from './local-spawn.ts';
import { exitFile, PLACED, placedFile, specFile, type JobSpec } from './slurm-files.ts';
import {
  ENDED,
  SlurmTools,
  SlurmUnavailable,
  type SlurmJob,
  type SlurmLaunch,
  type SlurmNode,
  type StepEnd,
} from './slurm-tools.ts';
import { endingWords, waitingWords } from './slurm-words.ts';
import type {
  ClusterNodes,
  Placement,
  Recovery,
  RunExit,
  RunHandle,
  RunObserver,
  Runner,
  RunSpec,
  SavedRun,
  SessionLogger,
  SessionRequest,
} from './runner.ts';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../private-files.ts';

export const JOB_PREFIX = 'streamgate-';

export interface SlurmRunnerOptions {
  /** The directory the service and the nodes share (STREAMGATE_SLURM_DIR). */
  dir: string;
  /** Ports the applications may take on their nodes. */
  portRange: { first: number; last: number };
  stopGraceMs: number;
  /** Whether real programs run in their sandbox on the nodes (always, but for tests of scheduling). */
  sandboxed: boolean;
  appCwd?: string;
  logger: SessionLogger;
  /** A batch job (default) or an srun step (slurm-tools.ts, SlurmLaunch). */
  launch?: SlurmLaunch;
  /** How often the jobs are looked at (default 250 ms). */
  pollMs?: number;
  /** The Slurm commands (slurm-tools.ts); tests give stand-ins. */
  tools?: SlurmTools;
}

/** One session's job as this runner follows it. */
interface Tracked {
  jobId: string | undefined;
  /** GPUs it asks for, and how long it may run before it says where it listens. */
  gpus: number;
  startupTimeoutMs: number;
  observer: RunObserver | undefined;
  placed: boolean;
  runningSince?: number;
  /** When it was submitted: a list asked for before then cannot show it yet. */
  submittedAt?: number;
  /** How and when its srun ended (`step` launches), while squeue has not shown its job. */
  stepEnd?: StepEnd & { at: number };
}

/** How often the nodes are looked at again while a job waits (their GPUs and states are in its words). */
const NODES_EVERY_MS = 2_000;

export class SlurmRunner implements Runner {
  private readonly tools: SlurmTools;
  private readonly tracked = new Map<string, Tracked>();
  /** What squeue said last; null while the controller does not answer. */
  private jobs: SlurmJob[] | null = [];
  /** When the list in `jobs` was asked for. */
  private jobsAt = 0;
  private nodes: SlurmNode[] = [];
  private nodesAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private watcher: FSWatcher | undefined;
  private pollAgain = false;

  constructor(private readonly options: SlurmRunnerOptions) {
    this.tools = options.tools ?? new SlurmTools();
  }

  async open(): Promise<void> {
    await mkdir(path.join(this.options.dir, 'logs'), { recursive: true, mode: PRIVATE_DIR_MODE });
    await chmod(this.options.dir, PRIVATE_DIR_MODE);
    await this.look();
    this.timer = setInterval(() => void this.poll(), this.options.pollMs ?? 250);
    this.timer.unref();
    // A job's word (where it listens, how it ended) is looked at as it is written, not at the next poll (up to
    // 250 ms later). On a shared file system that does not report other hosts' writes (NFS), the poll remains.
    try {
      this.watcher = watch(this.options.dir, (_event, name) => {
        if (name?.endsWith(PLACED) && this.placedNow(name.slice(0, -PLACED.length))) return;
        if (name?.endsWith(PLACED) || name?.endsWith('.exit.json')) void this.poll();
      });
      this.watcher.unref();
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      // No watching here: the poll alone.
    }
  }

  async sweep(isKnown: (sessionId: string) => boolean): Promise<void> {
    for (const job of this.jobs ?? []) {
      const id = job.name.slice(JOB_PREFIX.length);
      if (isKnown(id) || ENDED.test(job.state)) continue;
      this.options.logger.warn(
        { job: job.id, sessionId: id },
        `Cancelled Slurm job ${job.id} (${job.name}): no session of this service accounts for it`,
      );
      await this.tools.cancel(job.id).catch(() => undefined);
    }
  }

  /** The nodes' addresses as Slurm knows them now, any port (more through STREAMGATE_CSP_CONNECT). */
  async connectSources(): Promise<string[]> {
    const nodes = await this.tools.nodes().catch(() => []);
    return nodes.map((node) => `http://${node.addr.includes(':') ? `[${node.addr}]` : node.addr}:*`);
  }

  refuses(): string | undefined {
    return this.jobs === null
      ? 'The Slurm cluster does not answer (slurmctld is down or unreachable): try again in a minute.'
      : undefined;
  }

  async start(spec: RunSpec, observer: RunObserver): Promise<void> {
    const { sessionId, request } = spec;
    const { dir } = this.options;
    const settings = request.profile.settings;
    const job: JobSpec = {
      sessionId,
      request,
      environment: spec.environment,
      secret: Buffer.from(spec.secret).toString('base64'),
      portRange: this.options.portRange,
      stopGraceMs: this.options.stopGraceMs,
      sandboxed: this.options.sandboxed,
      appCwd: this.options.appCwd ?? repoRoot,
      bundles: appBundles(),
      nodeAddrs: Object.fromEntries(this.nodes.map((node) => [node.name, node.addr])),
    };
    for (const file of [placedFile(dir, sessionId), exitFile(dir, sessionId)])
      await rm(file, { force: true });
    await writeFile(specFile(dir, sessionId), JSON.stringify(job), { mode: PRIVATE_FILE_MODE });
    const tracked: Tracked = {
      jobId: undefined,
      gpus: settings.gpus,
      startupTimeoutMs: settings.startupTimeoutMs,
      observer,
      placed: false,
    };
    this.tracked.set(sessionId, tracked);
    const submission = {
      name: `${JOB_PREFIX}${sessionId}`,
      gpus: settings.gpus,
      // Its lifetime before any extension, which raises the limit (extend).
      minutes: (settings.lifetimeMs ?? settings.maxLifetimeMs) / 60_000,
      ...settings.slurm,
      output: path.join(dir, 'logs', `${sessionId}.job.log`),
      command: [process.execPath, ...appEntry('slurm-job'), dir, sessionId],
    };
    tracked.submittedAt = Date.now();
    if (this.options.launch === 'step') {
      // Its id comes with the next look at the jobs, or with the file it writes; an srun that ends before squeue
      // showed its job was refused (or its job ended at once), which that look tells apart.
      const log = path.join(dir, 'logs', `${sessionId}.srun.log`);
      void this.tools.runStep(submission, log).then((end) => {
        tracked.stepEnd = { ...end, at: Date.now() };
        void this.poll();
      });
      this.options.logger.info({ sessionId }, `Started srun for ${submission.name}`);
      return;
    }
    try {
      tracked.jobId = await this.tools.submit(submission);
    } catch (error) {
      this.tracked.delete(sessionId);
      const why = error instanceof SlurmUnavailable ? error.message : (error as Error).message;
      throw new Error(`${request.app.name} could not be submitted to Slurm: ${why}`, { cause: error });
    }
    this.options.logger.info({ sessionId, job: tracked.jobId }, `Submitted Slurm job ${tracked.jobId}`);
  }

  async stop(sessionId: string, handle: RunHandle | undefined): Promise<void> {
    const tracked = this.tracked.get(sessionId);
    this.tracked.delete(sessionId);
    const jobId = tracked?.jobId ?? handle?.job ?? (tracked && (await this.jobNamed(sessionId, tracked)));
    if (jobId) await this.tools.cancelAndWait(jobId, JOB_PREFIX, this.options.stopGraceMs + 5_000);
    const { dir } = this.options;
    for (const file of [specFile(dir, sessionId), placedFile(dir, sessionId), exitFile(dir, sessionId)])
      await rm(file, { force: true });
    await rm(path.join(dir, sessionId), { recursive: true, force: true });
  }

  /**
   * The id of a session's srun job not yet seen by the runner: squeue is asked until it lists the job by its name
   * (srun may still be asking for it), for at most 5 s, or until srun ended without one.
   */
  private async jobNamed(sessionId: string, tracked: Tracked): Promise<string | undefined> {
    if (this.options.launch !== 'step') return undefined;
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      const named = (await this.tools.jobs(JOB_PREFIX).catch(() => [])).find(
        (each) => each.name === `${JOB_PREFIX}${sessionId}`,
      );
      if (named || tracked.stepEnd) return named?.id;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return undefined;
  }

  /** Raises the job's time limit to the session's new lifetime; a cluster that refuses is said so, in words. */
  async extend(sessionId: string, handle: RunHandle, lifetimeMs: number): Promise<void> {
    const jobId = this.tracked.get(sessionId)?.jobId ?? handle.job;
    if (!jobId) throw new Error("The session's Slurm job is not known yet: try again in a moment.");
    try {
      await this.tools.setTimeLimit(jobId, lifetimeMs / 60_000);
    } catch (error) {
      if (error instanceof SlurmUnavailable)
        throw new Error(`The session cannot be extended now: ${error.message}; try again in a minute.`);
      this.options.logger.warn(
        { sessionId, job: jobId, err: (error as Error).message },
        `Slurm refused to raise the time limit of job ${jobId}`,
      );
      throw new Error(
        "This cluster does not let the session's job run longer: Slurm refused to raise its time limit (that takes a Slurm operator or administrator).",
      );
    }
    this.options.logger.info({ sessionId, job: jobId }, `Raised the time limit of Slurm job ${jobId}`);
  }

  isRunning(handle: RunHandle): boolean {
    // While the controller does not answer, running sessions go on.
    if (this.jobs === null || !handle.job) return true;
    const job = this.jobs.find((each) => each.id === handle.job);
    return job !== undefined && !ENDED.test(job.state);
  }

  recover(sessionId: string, saved: SavedRun): Recovery {
    const name = `${JOB_PREFIX}${sessionId}`;
    const job = (this.jobs ?? []).find((each) => each.name === name && !ENDED.test(each.state));
    if (job) return { kind: 'running', handle: { job: job.id } };
    // A session that never had a job waits its turn again; one whose job is gone ended with it.
    if (saved.started || saved.handle.job)
      return { kind: 'lost', reason: 'ended while the service was down' };
    return { kind: 'absent' };
  }

  watch(sessionId: string, observer: RunObserver, request: SessionRequest): void {
    const jobId = (this.jobs ?? []).find((each) => each.name === `${JOB_PREFIX}${sessionId}`)?.id;
    const { gpus, startupTimeoutMs } = request.profile.settings;
    const placed = existsSync(placedFile(this.options.dir, sessionId));
    this.tracked.set(sessionId, { jobId, gpus, startupTimeoutMs, observer, placed });
  }

  slots(): number {
    return Infinity;
  }

  cluster(): ClusterNodes {
    const nodes = this.nodes.map(({ name, addr, state, partitions, gpus, gpusInUse }) => ({
      name,
      address: addr,
      state,
      partitions,
      gpus,
      gpus_in_use: gpusInUse,
    }));
    return { scheduler: 'slurm', nodes };
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.watcher?.close();
    await this.polling;
  }

  /** The jobs as Slurm sees them now: the controller's silence is remembered, never taken for an end. */
  private async look(): Promise<void> {
    const asked = Date.now();
    try {
      this.jobs = await this.tools.jobs(JOB_PREFIX);
      this.jobsAt = asked;
      // More often while a job waits: its words name the partition's GPUs.
      const waiting = [...this.tracked.values()].some((tracked) => !tracked.placed);
      if (Date.now() - this.nodesAt >= (waiting ? NODES_EVERY_MS : 3 * NODES_EVERY_MS)) {
        this.nodes = await this.tools.nodes();
        this.nodesAt = Date.now();
      }
    } catch (error) {
      if (this.jobs !== null)
        this.options.logger.error(
          { err: (error as Error).message },
          'Slurm does not answer; running sessions go on',
        );
      this.jobs = null;
    }
  }

  /** One look at the jobs at a time; asked for during one, another follows it (a file written meanwhile). */
  private poll(): Promise<void> {
    if (this.polling) {
      this.pollAgain = true;
      return this.polling;
    }
    this.polling = (async () => {
      do {
        this.pollAgain = false;
        await this.look();
        if (this.jobs)
          for (const [sessionId, tracked] of this.tracked) this.follow(sessionId, tracked, this.jobs);
      } while (this.pollAgain);
    })().finally(() => (this.polling = undefined));
    return this.polling;
  }

  /** What became of one session's job since the last look. */
  private follow(sessionId: string, tracked: Tracked, jobs: SlurmJob[]): void {
    const observer = tracked.observer;
    if (!observer) return;
    tracked.jobId ??= jobs.find((each) => each.name === `${JOB_PREFIX}${sessionId}`)?.id;
    if (!tracked.jobId) {
      // An srun that ended with no job of its name in a list asked for since was refused: its words say why.
      const end = tracked.stepEnd;
      if (!end || end.at >= this.jobsAt) return;
      this.tracked.delete(sessionId);
      const said = end.said || `srun ended with code ${end.code}`;
      observer.exited({ code: null, signal: null, lastWords: said, reason: `was refused by Slurm: ${said}` });
      return;
    }
    const job = jobs.find((each) => each.id === tracked.jobId);
    // A list asked for while the job was being submitted does not show it yet: that is no end.
    if (!job && (tracked.submittedAt ?? 0) >= this.jobsAt) return;
    const state = job?.state ?? 'GONE';
    if (job && state === 'PENDING') {
      const ahead = jobs.filter(
        (each) => each.state === 'PENDING' && Number(each.id) < Number(job.id),
      ).length;
      observer.waiting(waitingWords(job, ahead, this.nodes, tracked.gpus));
    } else if (state === 'RUNNING' && !tracked.placed) {
      const placement = this.placement(sessionId, tracked.jobId);
      if (placement) {
        tracked.placed = true;
        observer.placed(placement, Promise.resolve());
      } else {
        if (tracked.runningSince === undefined) observer.waiting(`Starting on ${job?.node ?? 'its node'}`);
        tracked.runningSince ??= Date.now();
        if (Date.now() - tracked.runningSince >= tracked.startupTimeoutMs) {
          this.tracked.delete(sessionId);
          void this.tools.cancel(tracked.jobId).catch(() => undefined);
          const node = job?.node ?? 'its node';
          const reason = `started on ${node} but never said where it listens; its Slurm job was cancelled`;
          observer.exited({ code: null, signal: null, lastWords: '', reason });
        }
      }
    } else if (state === 'GONE' || ENDED.test(state)) {
      this.tracked.delete(sessionId);
      observer.exited(this.ending(sessionId, job));
    }
  }

  /**
   * A job that wrote where it listens is running: its session is placed as the file appears, without asking
   * squeue first (a call of 30 to 300 ms on the busy test cluster, the last step before ready). How it ends is
   * still Slurm's word, at the next look.
   */
  private placedNow(sessionId: string): boolean {
    const tracked = this.tracked.get(sessionId);
    if (!tracked?.observer || tracked.placed) return false;
    const placement = this.placement(sessionId, tracked.jobId);
    if (!placement) return false;
    tracked.jobId = placement.handle.job;
    tracked.placed = true;
    tracked.observer.placed(placement, Promise.resolve());
    return true;
  }

  /** Where the job says it listens; its id is the one it writes when the runner has not learnt it yet (srun). */
  private placement(sessionId: string, jobId: string | undefined): Placement | undefined {
    const placed = readWord<Placement & { job?: string }>(placedFile(this.options.dir, sessionId));
    const job = jobId ?? placed?.job;
    return placed && job ? { host: placed.host, ports: placed.ports, handle: { job } } : undefined;
  }

  /** How a job ended, from what its job wrote and what Slurm says. */
  private ending(sessionId: string, job: SlurmJob | undefined): RunExit {
    const file = exitFile(this.options.dir, sessionId);
    const wrote = readWord<RunExit>(file);
    const state = job?.state.split(' ')[0] ?? 'GONE';
    if (wrote && !/CANCELLED|PREEMPTED|NODE_FAIL|TIMEOUT/.test(state)) return wrote;
    return {
      code: null,
      signal: null,
      lastWords: wrote?.lastWords ?? '',
      reason: endingWords(state, job?.node),
    };
  }
}

/**
 * What a job wrote in the shared directory, or undefined while there is nothing whole to read: the job renames a
 * whole file into place, but a watch may report a file that a writer of another kind has only begun.
 */
function readWord<T>(file: string): T | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}
