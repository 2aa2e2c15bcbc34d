/**
 * Slurm's own tools, as the Slurm runner uses them: `sbatch` to submit, `squeue` to follow, `scancel` to end,
 * `sinfo` for the nodes, `scontrol` to give a job more time. Each reads the cluster's configuration as any Slurm tool does (SLURM_CONF).
 * Outputs are asked for in fixed one-line formats and parsed strictly: a line that does not parse is an
 * error, never a guess. A tool that does not answer (slurmctld down) rejects with SlurmUnavailable.
 */
import { execFile } from 'node:child_process';
import { Ajv, type ValidateFunction } from 'ajv';

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

export class SlurmTools {
  constructor(private readonly run: Run = runTool) {}

  /** Submits a batch job; resolves with its id. */
  async submit(job: Submission): Promise<string> {
    const args = [
      '--parsable',
      `--job-name=${job.name}`,
      `--time=${Math.max(1, Math.ceil(job.minutes))}`,
      `--output=${job.output}`,
      '--export=ALL',
      // A job whose node dies ends its session (with the reason); Slurm would otherwise queue it again.
      '--no-requeue',
      ...(job.gpus > 0 ? [`--gres=gpu:${job.gpus}`] : []),
      ...(job.partition ? [`--partition=${job.partition}`] : []),
      ...(job.account ? [`--account=${job.account}`] : []),
      ...(job.qos ? [`--qos=${job.qos}`] : []),
      ...(job.constraint ? [`--constraint=${job.constraint}`] : []),
      `--wrap=exec ${job.command.map(shellWord).join(' ')}`,
    ];
    const out = (await this.run('sbatch', args)).trim();
    const id = out.split(';')[0] ?? '';
    if (!/^\d+$/.test(id)) throw new Error(`sbatch answered something other than a job id: ${out}`);
    return id;
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
