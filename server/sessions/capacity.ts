/** Counts over the sessions: by state for /metrics, and the capacity report of GET /admin/capacity (CONTRACT §16). */
import type { Session } from './session.ts';
import type { CapacityReport, SessionCounts } from './types.ts';
import type { CatalogProfile, ProfileSettings } from '../catalog/model.ts';
import type { ClusterNodes, Runner } from '../runners/runner.ts';
import type { WarmProfileCounts } from './warm-pool.ts';

type ProfileRow = CapacityReport['by_profile'][number];

/**
 * Counts people's sessions and warm applications that hold a GPU (starting, ready or ending) and the
 * queue, in all and per profile. Profiles that keep applications warm come first, in catalog order.
 */
export function capacityReport(
  runner: Pick<Runner, 'slots' | 'cluster'>,
  sessions: Iterable<Session>,
  queue: readonly Session[],
  warm: readonly WarmProfileCounts[],
  profiles: readonly CatalogProfile[],
): CapacityReport {
  // On a cluster, its GPUs as its scheduler counts them, and whether each profile can run there.
  const cluster = runner.cluster?.();
  const capacity = cluster ? clusterGpus(cluster) : runner.slots();
  const rows = new Map<string, ProfileRow>();
  const row = (profile: string): ProfileRow => {
    let entry = rows.get(profile);
    if (!entry) rows.set(profile, (entry = { profile, running: 0, queued: 0, warm: 0, warm_target: 0 }));
    return entry;
  };
  for (const counts of warm)
    Object.assign(row(counts.profile), { warm: counts.warm, warm_target: counts.target });
  const report: CapacityReport = { capacity, running: 0, warm: 0, queued: queue.length, by_profile: [] };
  for (const session of sessions) {
    if (!session.holdsGpu) continue;
    if (session.warm) report.warm++;
    else {
      report.running++;
      row(session.request.profile.id).running++;
    }
  }
  for (const session of queue) row(session.request.profile.id).queued++;
  report.by_profile = [...rows.values()];
  if (cluster) report.cluster = clusterReport(cluster, profiles);
  return report;
}

/** Sessions by the state callers see, warm applications apart, and the queue's length. */
export function sessionCounts(sessions: Iterable<Session>, queued: number): SessionCounts {
  const counts: SessionCounts = { pending: 0, ready: 0, failed: 0, queued, warm: 0 };
  for (const session of sessions) {
    if (session.warm) counts.warm++;
    else counts[session.record.state]++;
  }
  return counts;
}

type Cluster = NonNullable<CapacityReport['cluster']>;

/** A node that cannot take a session now, as Slurm marks it (a trailing `*`: not responding). */
function isDown(state: string): boolean {
  return /DOWN|DRAIN|FAIL|NOT_RESPONDING|\*$/.test(state);
}

/**
 * The cluster part of the capacity report: GPUs in use and in total per partition as the scheduler counts
 * them, the nodes that are down or drained, and for each profile whether a node that is up can run it.
 */
export function clusterReport(cluster: ClusterNodes, profiles: readonly CatalogProfile[]): Cluster {
  const partitions = new Map<string, Cluster['partitions'][number]>();
  for (const node of cluster.nodes) {
    for (const name of node.partitions) {
      const row = partitions.get(name) ?? { name, gpus: 0, gpus_in_use: 0, nodes: 0, nodes_down: [] };
      row.nodes++;
      if (isDown(node.state)) row.nodes_down.push(node.name);
      else {
        row.gpus += node.gpus;
        row.gpus_in_use += node.gpus_in_use;
      }
      partitions.set(name, row);
    }
  }
  return {
    scheduler: cluster.scheduler,
    partitions: [...partitions.values()],
    nodes: cluster.nodes,
    profiles: profiles.map((profile) => ({ profile: profile.id, ...fits(cluster, profile.settings) })),
  };
}

/** GPUs of the cluster's nodes that are up. */
export function clusterGpus(cluster: ClusterNodes): number {
  return cluster.nodes.filter((node) => !isDown(node.state)).reduce((sum, node) => sum + node.gpus, 0);
}

/** Whether a node that is up, in the profile's partition, has the GPUs one of its sessions asks for. */
function fits(cluster: ClusterNodes, settings: ProfileSettings): { runnable: boolean; message: string } {
  const partition = settings.slurm?.partition;
  const where = partition ? `partition ${partition}` : 'the cluster';
  const nodes = cluster.nodes.filter((node) => !partition || node.partitions.includes(partition));
  if (nodes.length === 0) return { runnable: false, message: `${where} has no nodes` };
  const up = nodes.filter((node) => !isDown(node.state));
  if (up.length === 0) return { runnable: false, message: `every node of ${where} is down or drained` };
  const enough = up.filter((node) => node.gpus >= settings.gpus);
  const gpus = `${settings.gpus} GPU${settings.gpus === 1 ? '' : 's'}`;
  if (enough.length === 0) return { runnable: false, message: `no node of ${where} that is up has ${gpus}` };
  const count = `${enough.length} node${enough.length === 1 ? '' : 's'}`;
  return {
    runnable: true,
    message: `${count} of ${where} that ${enough.length === 1 ? 'is' : 'are'} up can give ${gpus}`,
  };
}
