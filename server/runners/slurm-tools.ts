/**
 * Slurm's own tools, as the Slurm runner uses them: `sbatch` to submit (or `srun` to allocate and start at once),
 * `squeue` to follow, `scancel` to end,
 * `sinfo` for the nodes, `scontrol` to give a job more time. Each reads the cluster's configuration as any Slurm tool does (SLURM_CONF).
 * Outputs are asked for in fixed one-line formats and parsed strictly: a line that does not parse is an
 * error, never a guess. A tool that does not answer (slurmctld down) rejects with SlurmUnavailable.
 */
import { execFile, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { PRIVATE_FILE_MODE } from '../private-files.ts';

/** The controller (slurmctld) did not answer, or a tool is missing: launches are refused in these words. */
export class SlurmUnavailable extends Error {
  override name = 'SlurmUnavailable';
}

/** One job of the service, as squeue lists it. */
export interface SlurmJob {
  id: string;
  name: string;
  /** PENDING, RUNNING, COMPLETING, COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, PREEMPTED, OUT_OF_MEMORY ... */
  state: string;
  /** Why it waits (Resources, Priority ...) or "None". */
  reason: string;
  partition: string;
  /** The node it runs on; empty while pending. */
  node: string;
}

/** One node, as `scontrol show nodes --oneliner` lists it. */
export interface SlurmNode {
  name: string;
  addr: string;
  /** IDLE, MIXED, ALLOCATED, DOWN, DRAINED, DRAINING, ... (with flags such as +DRAIN joined by +). */
  state: string;
  partitions: string[];
  gpus: number;
  gpusInUse: number;
}

/** What a submission asks of Slurm. */
export interface Submission {
  name: string;
  gpus: number;
  minutes: number;
  partition?: string;
  account?: string;
  qos?: string;
  constraint?: string;
  /** Where the job's own output goes. */
  output: string;
  /** The command the job runs (argv; quoted for the batch script's shell here). */
  command: string[];
}

/**
 * How a session's job starts (STREAMGATE_SLURM_LAUNCH). `batch`: a batch job, which Slurm 22.05 allocates only at
 * slurmctld's next background pass (once a second), whatever slurm.conf says; it needs nothing of the service's
 * machine once submitted. `step`: `srun`, whose allocation is made in its request and whose one step is the job;
 * srun stays on the service's machine as long as the job, and the job ends if srun is killed.
 */
export type SlurmLaunch = 'batch' | 'step';

/** What became of an srun: its exit code, and its last line of error output (Slurm's words when it refused). */
export interface StepEnd {
  code: number | null;
  said: string;
}

/** Starts srun with these arguments, its output into `log`, in a session of its own; resolves when it ends. */
export type SpawnStep = (args: string[], log: string) => Promise<StepEnd>;

/**
 * srun as a process of its own session, not of the service's: a restart of the service (or its SIGKILL) leaves it,
 * and the session's job, running, as a batch job would be; the service finds the job again by its name.
 */
export const spawnStep: SpawnStep = (args, log) => {
  const fd = openSync(log, 'a', PRIVATE_FILE_MODE);
  const child = spawn('srun', args, { detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  child.unref();
  return new Promise((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      resolve({
        code: null,
        said: error.code === 'ENOENT' ? 'srun is not installed: run npm run setup' : error.message,
      }),
    );
    child.once('exit', (code) => {
      const lines = readFileSync(log, 'utf8').trim().split('\n');
      resolve({ code, said: (lines.at(-1) ?? '').replace(/^srun: (error: )?/, '') });
    });
  });
};

/** The states of a job that is over. */
export const ENDED =
  /^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|PREEMPTED|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|SPECIAL_EXIT|REVOKED)/;

export type Run = (file: string, args: string[]) => Promise<string>;

/** Runs one tool; rejects with SlurmUnavailable when it cannot reach the controller or is missing. */
export const runTool: Run = (file, args) =>
  new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 10_000, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      const said = `${stderr}`.trim().split('\n').at(-1) ?? '';
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      const unreachable =
        /Unable to contact slurm controller|Socket timed out|Connection refused|Zero Bytes/i;
      if (missing) return reject(new SlurmUnavailable(`${file} is not installed: run npm run setup`));
      if (unreachable.test(said) || error.killed)
        return reject(new SlurmUnavailable('the Slurm controller (slurmctld) does not answer'));
      reject(new Error(`${file} failed: ${said || error.message}`));
    });
  });

/** What sbatch and srun are both asked: the job's name, resources, limits and output. */
function jobOptions(job: Submission): string[] {
  return [
    `--job-name=${job.name}`,
    `--time=${Math.max(1, Math.ceil(job.minutes))}`,
    `--output=${job.output}`,
    '--export=ALL',
    ...(job.gpus > 0 ? [`--gres=gpu:${job.gpus}`] : []),
    ...(job.partition ? [`--partition=${job.partition}`] : []),
    ...(job.account ? [`--account=${job.account}`] : []),
    ...(job.qos ? [`--qos=${job.qos}`] : []),
    ...(job.constraint ? [`--constraint=${job.constraint}`] : []),
  ];
}

export class SlurmTools {
  constructor(
    private readonly run: Run = runTool,
    private readonly spawnSrun: SpawnStep = spawnStep,
  ) {}

  /** Submits a batch job; resolves with its id. */
  async submit(job: Submission): Promise<string> {
    const args = [
      '--parsable',
      ...jobOptions(job),
      // A job whose node dies ends its session (with the reason); Slurm would otherwise queue it again.
      '--no-requeue',
      `--wrap=exec ${job.command.map(shellWord).join(' ')}`,
    ];
    const out = (await this.run('sbatch', args)).trim();
    const id = out.split(';')[0] ?? '';
    if (!/^\d+$/.test(id)) throw new Error(`sbatch answered something other than a job id: ${out}`);
    return id;
  }

  /**
   * Allocates and starts the job at once as one srun step (SlurmLaunch `step`), srun's own words into `log`;
   * resolves when srun ends. The job's id is learnt from squeue by its name (or from what the job writes).
   */
  runStep(job: Submission, log: string): Promise<StepEnd> {
    // One task, no input; an interactive job is never queued again when its node dies.
    return this.spawnSrun(['--ntasks=1', '--input=none', ...jobOptions(job), ...job.command], log);
  }

  /** The jobs whose names start with `prefix`, of any state Slurm still remembers (squeue --json lists them all). */
  async jobs(prefix: string): Promise<SlurmJob[]> {
    const out = checked<SqueueJson>(validJobs, await this.run('squeue', ['--json']), 'squeue --json');
    return out.jobs
      .filter((job) => job.name.startsWith(prefix))
      .map((job) => ({
        id: String(job.job_id),
        name: job.name,
        state: job.job_state,
        reason: job.state_reason,
        partition: job.partition,
        node: job.batch_host || job.nodes,
      }));
  }

  /**
   * Sets a job's time limit (minutes from its start). Raising it takes an operator or administrator of the
   * cluster (or a root service): Slurm refuses anyone else, and the error says so.
   */
  async setTimeLimit(jobId: string, minutes: number): Promise<void> {
    await this.run('scontrol', ['update', `JobId=${jobId}`, `TimeLimit=${Math.max(1, Math.ceil(minutes))}`]);
  }

  /** Cancels a job (Slurm signals all its processes, then kills what is left after KillWait). */
  async cancel(jobId: string): Promise<void> {
    await this.run('scancel', [jobId]);
  }
  /** Cancels a job and waits (at most `withinMs`) until squeue shows it over or no longer lists it. */
  async cancelAndWait(jobId: string, prefix: string, withinMs: number): Promise<void> {
    await this.cancel(jobId).catch(() => undefined);
    const deadline = Date.now() + withinMs;
    while (Date.now() < deadline) {
      const jobs = await this.jobs(prefix).catch(() => null);
      const job = jobs?.find((each) => each.id === jobId);
      if (jobs && (!job || ENDED.test(job.state))) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The nodes, their addresses, states and GPUs (sinfo --json). */
  async nodes(): Promise<SlurmNode[]> {
    const out = checked<SinfoJson>(validNodes, await this.run('sinfo', ['--json']), 'sinfo --json');
    return out.nodes.map((node) => ({
      name: node.name,
      addr: node.address || node.name,
      // DOWN, IDLE+DRAIN, MIXED+NOT_RESPONDING ...: the state and its flags, as scontrol writes them.
      state: [node.state.toUpperCase(), ...node.state_flags].join('+'),
      partitions: node.partitions,
      gpus: gpusOf(node.gres),
      gpusInUse: gpusOf(node.gres_used),
    }));
  }
}

/** What the runner reads of `squeue --json` (Slurm 22.05, data parser 0.0.38); the rest is ignored. */
interface SqueueJson {
  jobs: {
    job_id: number;
    name: string;
    job_state: string;
    state_reason: string;
    partition: string;
    nodes: string;
    batch_host?: string;
  }[];
}

/** What the runner reads of `sinfo --json`. */
interface SinfoJson {
  nodes: {
    name: string;
    address: string;
    state: string;
    state_flags: string[];
    gres: string;
    gres_used: string;
    partitions: string[];
  }[];
}

const ajv = new Ajv({ allErrors: false });
const text = { type: 'string' } as const;
const validJobs = ajv.compile<SqueueJson>({
  type: 'object',
  required: ['jobs'],
  properties: {
    jobs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['job_id', 'name', 'job_state', 'state_reason', 'partition', 'nodes'],
        properties: {
          job_id: { type: 'integer' },
          name: text,
          job_state: text,
          state_reason: text,
          partition: text,
          nodes: text,
          batch_host: text,
        },
      },
    },
  },
});
const validNodes = ajv.compile<SinfoJson>({
  type: 'object',
  required: ['nodes'],
  properties: {
    nodes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'address', 'state', 'state_flags', 'gres', 'gres_used', 'partitions'],
        properties: {
          name: text,
          address: text,
          state: text,
          state_flags: { type: 'array', items: text },
          gres: text,
          gres_used: text,
          partitions: { type: 'array', items: text },
        },
      },
    },
  },
});

/** Parses a tool's JSON and checks the part the runner reads against its schema: a mismatch is an error, never a guess. */
function checked<T>(valid: ValidateFunction<T>, out: string, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(out);
  } catch {
    throw new Error(`${what} printed something other than JSON`);
  }
  // Slurm 22.05's tools answer 0 with empty lists and an error when the controller does not answer.
  const errors = (value as { errors?: unknown } | null)?.errors;
  if (Array.isArray(errors) && errors.length > 0) {
    const said = errors
      .map((each) => (each as { error?: unknown }).error)
      .filter((each) => typeof each === 'string');
    throw new SlurmUnavailable(
      `the Slurm controller (slurmctld) does not answer (${what}: ${said.join('; ') || 'an error'})`,
    );
  }
  if (!valid(value))
    throw new Error(`${what} printed JSON of another shape: ${ajv.errorsText(valid.errors)}`);
  return value;
}

/** GPUs in a gres list such as `gpu:2`, `gpu:a100:2(IDX:0-1)` or `gpu:1,shard:4`. */
export function gpusOf(gres: string): number {
  let sum = 0;
  for (const part of gres.split(',')) {
    const match = /^gpu(?::[^:(]+)?:(\d+)/.exec(part.trim());
    sum += Number(match?.[1] ?? 0);
  }
  return sum;
}

/** One word for a POSIX shell: the batch script runs the command through /bin/sh. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./=:@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
