/**
 * Sessions as Slurm jobs (CONTRACT §18), through the portal, on a real two-node cluster of this machine
 * (scripts/slurm-cluster.sh: two slurmd in network namespaces of their own, one fake GPU each): three
 * launches, two on different nodes and the third waiting with words; video from the second node's address
 * in the real viewer, and its files through the service; an end lets the waiting one start; a job cancelled
 * outside ends its session in the viewer; a service killed with SIGKILL and started again adopts the running
 * job; nothing is left after.
 */
import { expect, test, type APIRequestContext } from '@playwright/test';
import { startTestCluster, type TestCluster } from '../test-support/slurm-cluster';
import { sampleCatalog } from './support/catalogs';
import { startRestartableStack, type RestartableStack } from './support/restartable-stack';
import { expectPlaying } from './support/video';
import { marksScript } from './support/whep-test-client';

interface SessionBody {
  id: string;
  status: { condition: string; message: string };
  routes?: Record<string, unknown>;
}

let cluster: TestCluster;
let stack: RestartableStack;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  cluster = await startTestCluster();
  stack = await startRestartableStack({
    catalog: sampleCatalog({ width: 640, height: 360, fps: 30 }),
    env: { ...cluster.env, STREAMGATE_RUNNER: 'slurm' },
  });
});

test.afterAll(async () => {
  await stack?.stop();
  await cluster?.stop();
});

async function session(request: APIRequestContext, id: string): Promise<SessionBody> {
  return (await (await request.get(`${stack.apiURL}/stream/${id}`)).json()) as SessionBody;
}

async function launch(request: APIRequestContext): Promise<string> {
  const res = await request.post(`${stack.apiURL}/stream`, { data: { id: 'sample', profile: 'small' } });
  expect([200, 202]).toContain(res.status());
  return ((await res.json()) as SessionBody).id;
}

/** The node address a ready session's routes name. */
async function hostOf(request: APIRequestContext, id: string): Promise<string> {
  await expect
    .poll(
      async () =>
        (await session(request, id)).status?.condition ?? JSON.stringify(await session(request, id)),
      {
        timeout: 60_000,
      },
    )
    .toBe('ready');
  return Object.keys((await session(request, id)).routes ?? {})[0] ?? '';
}

async function streamgateJobs(): Promise<string[]> {
  const out = await cluster.slurm('squeue', ['--noheader', '--format=%j %T']);
  return out.split('\n').filter((line) => line.startsWith('streamgate-'));
}

test('three launches on two one-GPU nodes: two run apart, the third waits in words and starts when one ends', async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  const addresses = cluster.nodes.map((node) => node.addr).sort();

  await page.goto(`${stack.baseURL}/launch?app=sample&profile=small`);
  await page.getByRole('button', { name: 'Review' }).click();
  await page.getByRole('button', { name: 'Launch' }).click();
  await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/);
  const first = page.url().split('/').at(-1)!;
  const second = await launch(request);
  const firstHost = await hostOf(request, first);
  const secondHost = await hostOf(request, second);
  expect([firstHost, secondHost].sort()).toEqual(addresses);

  const third = await launch(request);
  await expect
    .poll(async () => (await session(request, third)).status.message, { timeout: 30_000 })
    .toMatch(/^All 2 GPUs of partition gpu are in use: waiting for one to free up/);

  // The viewer plays what the node at the second address streams.
  const onSecondNode = firstHost === addresses[1] ? first : second;
  await page.goto(`${stack.baseURL}/sessions/${onSecondNode}`);
  await page.evaluate(marksScript());
  await expectPlaying(page);
  // Its files are kept on its node, and reached through the service there.
  const files = `${stack.apiURL}/stream/${onSecondNode}/files`;
  const put = await request.put(`${files}/from-the-portal.txt`, {
    data: 'kept on the node\n',
    headers: { 'content-type': 'application/octet-stream' },
  });
  expect(put.status()).toBe(201);
  expect(await (await request.get(`${files}/from-the-portal.txt`)).text()).toBe('kept on the node\n');
  expect(((await (await request.get(files)).json()) as { items: { name: string }[] }).items).toEqual([
    expect.objectContaining({ name: 'from-the-portal.txt' }),
  ]);

  const other = onSecondNode === first ? second : first;
  expect((await request.delete(`${stack.apiURL}/stream/${other}`)).status()).toBe(204);
  expect(addresses).toContain(await hostOf(request, third));

  // A job cancelled from outside the service ends its session, and the viewer says so.
  await cluster.slurm('scancel', [`--name=streamgate-${onSecondNode}`]);
  await expect(page.getByText(/its Slurm job was cancelled/)).toBeVisible({ timeout: 30_000 });
  expect((await request.get(`${stack.apiURL}/stream/${onSecondNode}`)).status()).toBe(410);

  // A service killed with SIGKILL leaves the job running; started again, it adopts it by its name.
  await stack.crash();
  expect(await streamgateJobs()).toEqual([`streamgate-${third} RUNNING`]);
  await stack.restart();
  const adopted = await session(request, third);
  expect(adopted.status.condition).toBe('ready');
  expect(Object.keys(adopted.routes ?? {})).toHaveLength(1);

  expect((await request.delete(`${stack.apiURL}/stream/${third}`)).status()).toBe(204);
  await expect.poll(streamgateJobs, { timeout: 30_000 }).toEqual([]);
});

test('admins see the cluster: GPUs per partition as Slurm counts them, and which profiles it can run', async ({
  page,
}) => {
  await page.goto(`${stack.baseURL}/admin/profiles`);
  const region = page.getByRole('region', { name: 'Capacity' });
  await expect(region).toContainText('Partition gpu: 0 of 2 GPUs in use on 2 nodes');
  await expect(region).toContainText('small: runs on the cluster');
});
