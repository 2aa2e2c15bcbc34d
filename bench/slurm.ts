/**
 * Launch to first frame through Slurm against the local runner, in the same run, on the idle two-node test cluster
 * (scripts/slurm-cluster.sh): real services (server/main.ts), one local and one with STREAMGATE_RUNNER=slurm for each
 * way a session's job may start (STREAMGATE_SLURM_LAUNCH: batch, step), each launching
 * the sample application N times, one after the other, as a user's program would: POST /stream, GET until ready,
 * a ticket, then a WHEP viewer (node-datachannel) until its first video packet. Prints the median and p90 of each,
 * the difference (what submission and scheduling cost), where a Slurm launch's time goes (slurmctld's log: submitted,
 * allocated; slurmd's: launched; the job's output file: its step started; the job's own marks, written with its
 * ports (job.started: its Node process began; job.entered: its code loaded; job.sandboxReady; job.appStarting;
 * job.spawned; job.listening); the shared directory: the application's log opened and its ports written, looked at
 * every 10 ms), and the Slurm settings the figure
 * depends on. It prints figures and asserts none.
 * Usage: npx tsx bench/slurm.ts [--runs 5] [--launch batch,step]  (one test cluster at a time on a machine: none
 * may be running)
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { sampleCatalog } from '../e2e/support/catalogs.ts';
import { startTestCluster, type TestCluster } from '../test-support/slurm-cluster.ts';
import { startService, type Service } from '../test-support/service.ts';
import { openViewer } from '../test-support/whep-viewer.ts';
import { median, quantile } from './stats.ts';

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = Math.max(1, Number(runsAt >= 0 ? args[runsAt + 1] : 5) || 5);
const launchAt = args.indexOf('--launch');
const launches = (launchAt >= 0 ? (args[launchAt + 1] ?? '') : 'batch,step').split(',');
for (const each of launches)
  if (each !== 'batch' && each !== 'step') throw new Error(`--launch takes batch and step, not ${each}`);
const catalog = sampleCatalog({ width: 640, height: 360, fps: 30 });

interface Launch {
  /** From the POST to the session's first ready answer, and to the viewer's first video packet (ms). */
  ready: number;
  frame: number;
  /** Slurm only: ms from the POST to each mark of the cluster's logs and the shared directory. */
  marks?: Record<string, number>;
}

async function json(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** One launch, from the POST to the first video packet; the session is ended after. */
async function launchOnce(
  service: Service,
): Promise<{ id: string; at: number; seen: Record<string, number>; launch: Launch }> {
  // What the job writes in the shared directory, seen as it appears (one launch at a time: a new file is this
  // one's), also while the POST waits for it to be ready: its application's log (the application is being
  // spawned) and its ports (it was spawned).
  const shared = path.join(service.dataDir, 'slurm');
  const appeared = new Map<string, number>();
  const look = () => {
    for (const dir of [shared, path.join(shared, 'logs')])
      for (const name of existsSync(dir) ? readdirSync(dir) : [])
        if (!appeared.has(name)) appeared.set(name, Date.now());
  };
  look();
  const before = new Set(appeared.keys());
  const watcher = setInterval(look, 10);
  const at = Date.now();
  const posted = await json(`${service.api}/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'sample', profile: 'small' }),
  });
  const id = posted.body.id as string;
  if (![200, 202].includes(posted.status)) throw new Error(`POST /stream answered ${posted.status}`);
  let session = posted;
  while (session.status !== 200) {
    if (session.status === 410 || Date.now() - at > 120_000)
      throw new Error(`session ${id} did not become ready: ${JSON.stringify(session.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    session = await json(`${service.api}/stream/${id}`);
  }
  const ready = Date.now() - at;
  clearInterval(watcher);
  const seen: Record<string, number> = {};
  // The job's own steps, as it wrote them with where it listens (slurm-job.ts): read before the session ends.
  const placed = path.join(shared, `${id}.placed.json`);
  if (existsSync(placed)) {
    const marks = (JSON.parse(readFileSync(placed, 'utf8')) as { marks?: Record<string, number> }).marks;
    for (const [name, time] of Object.entries(marks ?? {})) seen[`job.${name}`] = time - at;
  }
  for (const [mark, name] of [
    ['appSpawned', `${id}.log`],
    ['portsWritten', `${id}.placed.json`],
  ] as const) {
    const time = before.has(name) ? undefined : appeared.get(name);
    if (time !== undefined) seen[mark] = time - at;
  }
  const routes = session.body.routes as Record<string, { description: string; source_port: number }[]>;
  const [host, list = []] = Object.entries(routes)[0] ?? [];
  const port = list.find((route) => route.description === 'signaling')?.source_port;
  const ticket = await json(`${service.api}/stream/${id}/tickets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  const viewer = await openViewer(`http://${host}:${port}`, 20_000, ticket.body.ticket as string);
  let frame = NaN;
  try {
    while (viewer.videoPackets() === 0 && Date.now() - at < 150_000)
      await new Promise((resolve) => setTimeout(resolve, 5));
    if (viewer.videoPackets() > 0) frame = Date.now() - at;
  } finally {
    await viewer.close();
  }
  const ended = await fetch(`${service.api}/stream/${id}`, { method: 'DELETE' });
  if (ended.status !== 204) throw new Error(`Ending ${id} answered ${ended.status}`);
  if (Number.isNaN(frame)) throw new Error(`no video from session ${id}`);
  return { id, at, seen, launch: { ready, frame } };
}

/** The time of the first line of a Slurm log that matches, in ms since the epoch (logs stamp to the ms). */
function logged(file: string, pattern: RegExp): number {
  const line = readFileSync(file, 'utf8')
    .split('\n')
    .find((each) => pattern.test(each));
  const stamp = /^\[(\d{4}-\d\d-\d\dT[\d:.]+)\]/.exec(line ?? '')?.[1];
  return stamp ? new Date(stamp).getTime() : NaN;
}

/** Where a Slurm launch's time went: each mark in ms after the POST. */
async function slurmMarks(cluster: TestCluster, service: Service, id: string, at: number) {
  const out = await cluster.slurm('squeue', [
    '--noheader',
    '--states=all',
    `--name=streamgate-${id}`,
    '--format=%i %N',
  ]);
  const [job, node] = out.trim().split(/\s+/);
  const logs = path.join(cluster.env.STREAMGATE_TEST_CLUSTER_DIR ?? '', 'log');
  const ctld = path.join(logs, 'slurmctld.log');
  const jobLog = path.join(service.dataDir, 'slurm', 'logs', `${id}.job.log`);
  const since = (time: number) => time - at;
  const slurmd = path.join(logs, `slurmd-${node}.log`);
  // An srun's allocation is made in its request, and logged once made: it has no submission apart.
  const submitted = logged(ctld, new RegExp(`_slurm_rpc_submit_batch_job: JobId=${job} `));
  const allocated = logged(ctld, new RegExp(`(sched.*Allocate|_slurm_rpc_allocate_resources) JobId=${job} `));
  return {
    submitted: since(Number.isNaN(submitted) ? allocated : submitted),
    allocated: since(allocated),
    launched: since(logged(slurmd, new RegExp(`(batch job ${job}\\b|launch task StepId=${job}\\.)`))),
    stepStarted: since(statSafe(jobLog)),
  };
}

function statSafe(file: string): number {
  try {
    return statSync(file).birthtimeMs || statSync(file).mtimeMs;
  } catch {
    return NaN;
  }
}

/** Until Slurm has no streamgate job pending, running or completing: the cluster is idle for the next launch. */
async function idle(cluster: TestCluster): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const out = await cluster.slurm('squeue', ['--noheader', '--format=%j']);
    if (!out.split('\n').some((line) => line.startsWith('streamgate-'))) return;
    if (Date.now() > deadline) throw new Error(`Slurm still has jobs: ${out}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : '-').padStart(7);

function summary(name: string, launches: Launch[]): { ready: number; frame: number } {
  const frames = launches.map((each) => each.frame);
  const readies = launches.map((each) => each.ready);
  console.log(
    `${name.padEnd(8)}${String(launches.length).padStart(5)}${ms(median(readies))}${ms(quantile(readies, 0.9))}` +
      `${ms(median(frames))}${ms(quantile(frames, 0.9))}`,
  );
  return { ready: median(readies), frame: median(frames) };
}

async function main(): Promise<void> {
  const cluster = await startTestCluster();
  const services: Service[] = [];
  try {
    const options = { catalog, portal: false, env: { STREAMGATE_RATE_LIMIT: 'off' } };
    const local = await startService(options);
    services.push(local);
    const slurms = new Map<string, Service>();
    for (const launch of launches) {
      const slurm = await startService({
        ...options,
        env: { ...options.env, ...cluster.env, STREAMGATE_RUNNER: 'slurm', STREAMGATE_SLURM_LAUNCH: launch },
      });
      services.push(slurm);
      slurms.set(launch, slurm);
    }
    const results = new Map<string, Launch[]>([
      ['local', []],
      ...launches.map((each) => [each, []] as [string, Launch[]]),
    ]);
    // One of each first, unmeasured: the first start of a process reads its files from disk. By turns after.
    for (let i = -1; i < runs; i++) {
      const label = i < 0 ? 'warm-up' : `run ${i + 1}`;
      const one = await launchOnce(local);
      const line = [`${label.padEnd(8)} local: ready ${one.launch.ready} ms, frame ${one.launch.frame} ms`];
      if (i >= 0) results.get('local')?.push(one.launch);
      for (const [launch, slurm] of slurms) {
        const other = await launchOnce(slurm);
        await idle(cluster);
        other.launch.marks = { ...(await slurmMarks(cluster, slurm, other.id, other.at)), ...other.seen };
        const marks = Object.entries(other.launch.marks)
          .map(([key, value]) => `${key} ${ms(value).trim()}`)
          .join(', ');
        line.push(`${launch}: ready ${other.launch.ready} ms, frame ${other.launch.frame} ms (${marks})`);
        if (i >= 0) results.get(launch)?.push(other.launch);
      }
      console.log(line.join(' | '));
    }
    console.log(
      '\nLaunch (POST /stream) to ready and to the first video packet, ms (slurm: batch job or srun step):',
    );
    console.log('runner   runs  ready    p90  frame    p90');
    const a = summary('local', results.get('local') ?? []);
    for (const launch of launches) {
      const b = summary(launch, results.get(launch) ?? []);
      console.log(
        `overhead of Slurm, ${launch} (median, slurm - local): ready ${ms(b.ready - a.ready).trim()} ms, frame ${ms(b.frame - a.frame).trim()} ms`,
      );
    }
    for (const launch of launches) {
      const done = results.get(launch) ?? [];
      console.log(`\nWhere a Slurm launch (${launch}) goes, median ms after the POST:`);
      const keys = [...new Set(done.flatMap((each) => Object.keys(each.marks ?? {})))];
      for (const key of keys)
        console.log(
          `  ${key.padEnd(14)}${ms(median(done.map((each) => each.marks?.[key] ?? NaN).filter(Number.isFinite)))}`,
        );
      const readies = done.map((each) => each.ready);
      const frames = done.map((each) => each.frame);
      console.log(
        `  ${'ready'.padEnd(14)}${ms(median(readies))}\n  ${'first frame'.padEnd(14)}${ms(median(frames))}`,
      );
    }
    const config = await cluster.slurm('scontrol', ['show', 'config']);
    const settings = config
      .split('\n')
      .filter((line) =>
        /^(SchedulerParameters|SchedulerType|SchedulerTimeSlice|SelectType |MessageTimeout|BatchStartTimeout|PrologFlags|Prolog |ProctrackType|TaskPlugin )/.test(
          line,
        ),
      );
    console.log(
      `\nThe Slurm settings these figures depend on (scontrol show config):\n${settings.map((line) => `  ${line.replace(/\s+=\s+/, ' = ')}`).join('\n')}`,
    );
  } finally {
    for (const service of services) await service.close();
    await cluster.stop();
  }
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  // node-datachannel's threads would keep the process alive once everything is stopped.
  .finally(() => process.exit());
