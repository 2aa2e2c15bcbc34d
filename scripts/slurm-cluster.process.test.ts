/**
 * scripts/slurm-cluster.sh for real: two nodes, each in its own network namespace with one fake GPU; a job on each
 * runs the repository's code with node, binds its node's address and answers the host there; a third GPU job waits
 * for Resources; the stop leaves no namespace, link, folder or Slurm or munge process. A machine that cannot make
 * namespaces (no root, no CAP_NET_ADMIN) or has no Slurm fails here in the script's words: never a skip.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  clusterLeftovers,
  slurmProcesses,
  startTestCluster,
  type TestCluster,
} from '../test-support/slurm-cluster.ts';
import { until } from '../test-support/until.ts';

const root = path.resolve(import.meta.dirname, '..');
const PORT = 8123;
/**
 * The job: node runs a module of the repository (through tsx, from the shared filesystem), finds its node's address
 * (the namespace's one non-loopback IPv4 address) and answers there with what Slurm gave it.
 */
const JOB = `
const { until } = await import(${JSON.stringify(pathToFileURL(path.join(root, 'test-support/until.ts')).href)});
const os = await import('node:os');
const http = await import('node:http');
const addr = Object.values(os.networkInterfaces()).flat().find((a) => a.family === 'IPv4' && !a.internal).address;
const reply = { node: process.env.SLURMD_NODENAME, gpu: process.env.CUDA_VISIBLE_DEVICES, addr, repo: typeof until };
http.createServer((_, res) => res.end(JSON.stringify(reply))).listen(${PORT}, addr);
`;

interface SqueueJob {
  job_id: number;
  name: string;
  job_state: string;
  state_reason: string;
  nodes: string;
}

async function jobs(cluster: TestCluster): Promise<SqueueJob[]> {
  return (JSON.parse(await cluster.slurm('squeue', ['--json'])) as { jobs: SqueueJob[] }).jobs;
}

async function reply(url: string): Promise<unknown> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return response.ok ? await response.json() : undefined;
  } catch {
    return undefined;
  }
}

describe('the Slurm test cluster (scripts/slurm-cluster.sh)', () => {
  it('runs a job on each node at its own address, queues a third GPU job, and leaves nothing when stopped', async () => {
    const before = new Set(slurmProcesses());
    const outputs = mkdtempSync(path.join(tmpdir(), 'slurm-jobs-'));
    writeFileSync(path.join(outputs, 'job.mjs'), JOB);
    const started = Date.now();
    const cluster = await startTestCluster();
    const startMs = Date.now() - started;
    const dir = cluster.env.STREAMGATE_TEST_CLUSTER_DIR as string;
    let stopMs = 0;
    try {
      expect(cluster.env.SLURM_CONF).toBe(path.join(dir, 'slurm.conf'));
      expect(cluster.nodes).toEqual([
        { name: 'node1', addr: '10.77.0.11' },
        { name: 'node2', addr: '10.77.0.12' },
      ]);
      await expect(startTestCluster()).rejects.toThrow(/already running/);

      const submit = (args: string[]) =>
        cluster.slurm('sbatch', ['--parsable', '--gres=gpu:1', `--output=${outputs}/%j.out`, ...args]);
      for (const node of cluster.nodes) {
        await submit([
          ...[`--nodelist=${node.name}`, `--job-name=serve-${node.name}`, `--chdir=${root}`],
          `--wrap=exec ${process.execPath} --import tsx ${outputs}/job.mjs`,
        ]);
      }
      for (const node of cluster.nodes) {
        const url = `http://${node.addr}:${PORT}/`;
        const answer = await until(
          `the job on ${node.name} to answer at ${url}`,
          () => reply(url),
          30_000,
          200,
        );
        expect(answer).toEqual({ node: node.name, gpu: '0', addr: node.addr, repo: 'function' });
      }

      const third = (await submit(['--job-name=third', '--wrap=sleep 300'])).trim();
      const waiting = await until(
        'the third GPU job to wait for Resources',
        async () =>
          (await jobs(cluster)).find((j) => String(j.job_id) === third && j.state_reason === 'Resources'),
        15_000,
        200,
      );
      expect(waiting).toMatchObject({ job_state: 'PENDING', nodes: '' });
      const states = Object.fromEntries(
        (await jobs(cluster)).map((j) => [j.name, `${j.job_state} ${j.nodes}`]),
      );
      expect(states).toEqual({
        'serve-node1': 'RUNNING node1',
        'serve-node2': 'RUNNING node2',
        third: 'PENDING ',
      });
    } finally {
      const stopping = Date.now();
      await cluster.stop();
      stopMs = Date.now() - stopping;
      rmSync(outputs, { recursive: true, force: true });
    }
    expect(await clusterLeftovers(dir)).toEqual([]);
    expect(slurmProcesses().filter((p) => !before.has(p))).toEqual([]);
    await cluster.stop(); // a second stop finds nothing to do
    console.log(`Slurm test cluster: started in ${startMs} ms, stopped in ${stopMs} ms`);
  }, 180_000);
});
