/**
 * Slurm's own tools, as the Slurm runner uses them: `sbatch` to submit, `squeue` to follow, `scancel` to end,
 * `scontrol` for the nodes. Each reads the cluster's configuration as any Slurm tool does (SLURM_CONF).
 * Outputs are asked for in fixed one-line formats and parsed strictly: a line that does not parse is an
 * error, never a guess. A tool that does not answer (slurmctld down) rejects with SlurmUnavailable.
 */
import { execFile } from 'node:child_process';

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

const JOB_FORMAT = '%i|%j|%T|%r|%P|%N';

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

  /** The jobs whose names start with `prefix`, of any state Slurm still remembers. */
  async jobs(prefix: string): Promise<SlurmJob[]> {
    const out = await this.run('squeue', ['--noheader', '--states=all', `--format=${JOB_FORMAT}`]);
    return out
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map(parseJobLine)
      .filter((job) => job.name.startsWith(prefix));
  }

  /** Cancels a job (Slurm signals all its processes, then kills what is left after KillWait). */
  async cancel(jobId: string): Promise<void> {
    await this.run('scancel', [jobId]);
  }

  /** The nodes, their addresses, states and GPUs. */
  async nodes(): Promise<SlurmNode[]> {
    const out = await this.run('scontrol', ['show', 'nodes', '--oneliner']);
    return out
      .split('\n')
      .filter((line) => line.startsWith('NodeName='))
      .map(parseNodeLine);
  }
}

export function parseJobLine(line: string): SlurmJob {
  const [id = '', name = '', state = '', reason = '', partition = '', node = '', ...rest] = line
    .trim()
    .split('|');
  if (rest.length > 0 || !/^\d+(_\d+)?$/.test(id) || name === '' || state === '')
    throw new Error(`squeue printed a line that is not a job: ${line}`);
  return { id, name, state, reason, partition, node };
}

/** `Key=Value` pairs of one `scontrol --oneliner` line (values without spaces, as node lines have them). */
function pairs(line: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const part of line.trim().split(/\s+/)) {
    const at = part.indexOf('=');
    if (at > 0) map.set(part.slice(0, at), part.slice(at + 1));
  }
  return map;
}

/** GPUs in a TRES list such as `cpu=2,mem=1G,billing=2,gres/gpu=1`. */
function gpusOf(tres: string | undefined): number {
  const match = /(?:^|,)gres\/gpu=(\d+)/.exec(tres ?? '');
  return Number(match?.[1] ?? 0);
}

export function parseNodeLine(line: string): SlurmNode {
  const map = pairs(line);
  const name = map.get('NodeName');
  if (!name) throw new Error(`scontrol printed a node without a name: ${line}`);
  return {
    name,
    addr: map.get('NodeAddr') ?? name,
    state: map.get('State') ?? 'UNKNOWN',
    partitions: (map.get('Partitions') ?? '').split(',').filter(Boolean),
    gpus: gpusOf(map.get('CfgTRES')),
    gpusInUse: gpusOf(map.get('AllocTRES')),
  };
}

/** One word for a POSIX shell: the batch script runs the command through /bin/sh. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./=:@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
