/**
 * A session's job in words a person can act on: why it waits in Slurm's queue (Slurm's reason codes,
 * "Resources", "Priority", "ReqNodeNotAvail" ..., with the partition, its GPUs and the place in the queue), and
 * why it ended when Slurm ended it.
 */
import type { SlurmJob, SlurmNode } from './slurm-tools.ts';

/** GPUs of a partition as Slurm counts them on its nodes that are up. */
export function partitionGpus(nodes: readonly SlurmNode[], partition: string): number {
  return nodes
    .filter(
      (node) => node.partitions.includes(partition) && !/DOWN|DRAIN|FAIL|NOT_RESPONDING/.test(node.state),
    )
    .reduce((sum, node) => sum + node.gpus, 0);
}

function place(ahead: number): string {
  if (ahead <= 0) return "you're next";
  return ahead === 1 ? '1 session ahead' : `${ahead} sessions ahead`;
}

/** The message of a pending session whose job waits for `job.reason`, with `ahead` jobs of the service before it. */
export function waitingWords(
  job: SlurmJob,
  ahead: number,
  nodes: readonly SlurmNode[],
  gpus: number,
): string {
  const partition = job.partition || 'the default partition';
  const reason = job.reason.replace(/^\(|\)$/g, '');
  if (reason === 'Resources') {
    const total = partitionGpus(nodes, job.partition);
    const what =
      gpus === 0
        ? `The nodes of partition ${partition} are busy`
        : `All ${total} GPU${total === 1 ? '' : 's'} of partition ${partition} are in use`;
    return `${what}: waiting for one to free up, ${place(ahead)}`;
  }
  if (reason === 'Priority')
    return `Waiting for a GPU in partition ${partition} behind jobs of higher priority, ${place(ahead)}`;
  if (/^ReqNodeNotAvail|^NodeDown|^PartitionNodeLimit|^BadConstraints/.test(reason))
    return `No node of partition ${partition} that can run it is up (down, drained or reserved): it waits until an administrator brings one back`;
  if (/^Partition(Down|Inactive)/.test(reason))
    return `Partition ${partition} is down: it waits until an administrator brings it back`;
  if (/^(QOS|Assoc)/.test(reason))
    return `A Slurm limit of your account or QOS is reached (${reason}): it waits until one of your jobs ends`;
  if (reason === 'None' || reason === '') return 'Submitted to Slurm: waiting for the scheduler';
  return `Waiting in Slurm's queue (${reason})`;
}

/** Why a session's job ended when Slurm ended it (its state), in words that follow the application's name. */
export function endingWords(state: string, node: string | undefined): string {
  if (state.startsWith('CANCELLED')) return 'was ended: its Slurm job was cancelled';
  if (state === 'PREEMPTED') return 'was ended: its Slurm job was preempted';
  if (state === 'NODE_FAIL') return `was ended: its node ${node ?? ''} failed`.replace('  ', ' ');
  if (state === 'TIMEOUT') return 'reached the time limit of its Slurm job';
  if (state === 'GONE') return 'was ended: Slurm no longer knows its job';
  return `was ended: its Slurm job ${state.toLowerCase().replaceAll('_', ' ')}`;
}
