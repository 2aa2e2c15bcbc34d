import { describe, expect, it } from 'vitest';
import { clusterGpus, clusterReport } from './capacity.ts';
import type { ClusterNodes } from '../runners/runner.ts';
import type { CatalogProfile } from '../catalog/model.ts';
import { testSettings } from '../../test-support/session-support.ts';

const cluster: ClusterNodes = {
  scheduler: 'slurm',
  nodes: [
    {
      name: 'node1',
      address: '10.77.0.11',
      state: 'ALLOCATED',
      partitions: ['gpu'],
      gpus: 1,
      gpus_in_use: 1,
    },
    {
      name: 'node2',
      address: '10.77.0.12',
      state: 'IDLE+DRAIN',
      partitions: ['gpu'],
      gpus: 1,
      gpus_in_use: 0,
    },
    { name: 'big1', address: '10.77.0.21', state: 'DOWN*', partitions: ['big'], gpus: 4, gpus_in_use: 0 },
  ],
};

function profile(id: string, gpus: number, partition?: string): CatalogProfile {
  const settings = { ...testSettings, gpus, ...(partition ? { slurm: { partition } } : {}) };
  return {
    id,
    name: id,
    description: '',
    applications: [],
    settings,
    attachments: [],
  } as unknown as CatalogProfile;
}

describe('the capacity of a cluster', () => {
  it('counts GPUs of nodes that are up per partition, and names the nodes down or drained', () => {
    const report = clusterReport(cluster, []);
    expect(report.partitions).toEqual([
      { name: 'gpu', gpus: 1, gpus_in_use: 1, nodes: 2, nodes_down: ['node2'] },
      { name: 'big', gpus: 0, gpus_in_use: 0, nodes: 1, nodes_down: ['big1'] },
    ]);
    expect(clusterGpus(cluster)).toBe(1);
  });

  it('says for each profile whether a node that is up can run it, and why not', () => {
    const report = clusterReport(cluster, [
      profile('default', 1, 'gpu'),
      profile('dual', 2, 'gpu'),
      profile('big', 4, 'big'),
      profile('nowhere', 1, 'cpu'),
    ]);
    expect(report.profiles).toEqual([
      { profile: 'default', runnable: true, message: '1 node of partition gpu that is up can give 1 GPU' },
      { profile: 'dual', runnable: false, message: 'no node of partition gpu that is up has 2 GPUs' },
      { profile: 'big', runnable: false, message: 'every node of partition big is down or drained' },
      { profile: 'nowhere', runnable: false, message: 'partition cpu has no nodes' },
    ]);
  });
});
