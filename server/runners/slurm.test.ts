/**
 * The Slurm runner against Slurm's tools played by the test: what squeue, sbatch, scancel and sinfo
 * print is made here, in the formats the runner asks for; the shared directory is a temporary one.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SlurmRunner } from './slurm.ts';
import { placedFile, specFile, writePrivate, type JobSpec } from './slurm-files.ts';
import { gpusOf, SlurmTools, SlurmUnavailable, type SlurmLaunch, type StepEnd } from './slurm-tools.ts';
import { waitingWords } from './slurm-words.ts';
import type { RunExit, RunObserver } from './runner.ts';
import { standInRequest } from '../../test-support/session-support.ts';

/** Nodes as `sinfo --json` of Slurm 22.05 prints them (the fields the runner reads, and one it does not). */
const NODES = [
  {
    name: 'node1',
    address: '10.77.0.11',
    state: 'allocated',
    state_flags: [],
    gres: 'gpu:1',
    gres_used: 'gpu:1',
    partitions: ['gpu'],
    cpus: 2,
  },
  {
    name: 'node2',
    address: '10.77.0.12',
    state: 'mixed',
    state_flags: [],
    gres: 'gpu:1',
    gres_used: 'gpu:1(IDX:0)',
    partitions: ['gpu'],
    cpus: 2,
  },
];

/** A cluster in a table: jobs by id; each tool reads or changes it. */
class FakeCluster {
  jobs = new Map<string, { name: string; state: string; reason: string; node: string; minutes?: number }>();
  submitted: string[][] = [];
  /** Whether `scontrol update` may raise a time limit (an operator's right): as root here, not as a user. */
  operator = true;
  cancelled: string[] = [];
  down = false;
  slowMs = 0;
  /** Each tool run, by name, in order. */
  ran: string[] = [];
  /** What srun was asked, and how it answers: it allocates at once, or it is refused in these words. */
  stepped: string[][] = [];
  refuseStep: string | undefined;
  private next = 100;
  step = (args: string[]): Promise<StepEnd> => {
    this.stepped.push(args);
    if (this.refuseStep) return Promise.resolve({ code: 1, said: this.refuseStep });
    const name = args.find((arg) => arg.startsWith('--job-name='))!.slice('--job-name='.length);
    this.jobs.set(String(this.next++), { name, state: 'RUNNING', reason: 'None', node: 'node2' });
    return new Promise(() => {}); // as long as its job: these tests end first
  };
  run = async (file: string, args: string[]): Promise<string> => {
    this.ran.push(file);
    if (this.down) throw new SlurmUnavailable('the Slurm controller (slurmctld) does not answer');
    if (file === 'sbatch') {
      this.submitted.push(args);
      const id = String(this.next++);
      const name = args.find((arg) => arg.startsWith('--job-name='))!.slice('--job-name='.length);
      this.jobs.set(id, { name, state: 'PENDING', reason: 'None', node: '' });
      return `${id}\n`;
    }
    if (file === 'scancel') {
      this.cancelled.push(args[0]!);
      const job = this.jobs.get(args[0]!);
      if (job) job.state = 'CANCELLED';
      return '';
    }
    if (file === 'squeue') {
      const asked = [...this.jobs].map(([id, j]) => ({
        job_id: Number(id),
        name: j.name,
        job_state: j.state,
        state_reason: j.reason,
        partition: 'gpu',
        nodes: j.node,
        batch_host: j.node,
      }));
      // The list as it was when asked for, answered later (a busy controller).
      if (this.slowMs > 0) await new Promise((resolve) => setTimeout(resolve, this.slowMs));
      return JSON.stringify({ meta: {}, errors: [], jobs: asked });
    }
    if (file === 'scontrol' && args[0] === 'update') {
      const job = this.jobs.get(args[1]!.slice('JobId='.length));
      if (!job) throw new Error('scontrol failed: slurm_update error: Invalid job id specified');
      if (!this.operator) throw new Error('scontrol failed: slurm_update error: Access/permission denied');
      job.minutes = Number(args[2]!.slice('TimeLimit='.length));
      return '';
    }
    if (file === 'sinfo') return JSON.stringify({ meta: {}, errors: [], nodes: NODES });
    throw new Error(`unexpected ${file}`);
  };
}

let cluster: FakeCluster;
let dir: string;
let heard: { placed: unknown[]; exited: RunExit[]; waiting: string[] };
let logged: string[];

function observer(): RunObserver {
  return {
    placed: (placement) => heard.placed.push(placement),
    exited: (exit) => heard.exited.push(exit),
    waiting: (why) => heard.waiting.push(why),
    starting: () => heard.placed.length === 0,
  };
}

function runner(launch: SlurmLaunch = 'batch'): SlurmRunner {
  const log = (_fields: object, message: string) => logged.push(message);
  return new SlurmRunner({
    dir,
    portRange: { first: 47000, last: 47999 },
    stopGraceMs: 100,
    sandboxed: true,
    logger: { info: log, warn: log, error: log },
    pollMs: 100,
    tools: new SlurmTools(cluster.run, cluster.step),
    launch,
  });
}

const spec = (sessionId: string, settings = {}) => ({
  sessionId,
  request: standInRequest([], { startupTimeoutMs: 5_000, maxLifetimeMs: 90 * 60_000, ...settings }),
  secret: new Uint8Array(32),
  environment: {},
});

beforeEach(async () => {
  vi.useFakeTimers();
  cluster = new FakeCluster();
  dir = await mkdtemp(path.join(tmpdir(), 'streamgate-slurm-'));
  heard = { placed: [], exited: [], waiting: [] };
  logged = [];
});
afterEach(async () => {
  vi.useRealTimers();
  await rm(dir, { recursive: true, force: true });
});

describe('the Slurm runner', () => {
  it('submits one job per session with its GPUs, partition and lifetime, and says in words why it waits', async () => {
    const slurm = runner();
    await slurm.open();
    const environment = { STREAMGATE_FILES_MB: '2048' };
    const asked = spec('s1', { gpus: 1, slurm: { partition: 'gpu', qos: 'interactive' } });
    await slurm.start({ ...asked, environment }, observer());
    // The application's environment (its folder's size among it) travels to the node in the job's spec.
    const written = JSON.parse(await readFile(specFile(dir, 's1'), 'utf8')) as JobSpec;
    expect(written.environment).toEqual(environment);
    expect(cluster.submitted[0]).toEqual(
      expect.arrayContaining([
        '--job-name=streamgate-s1',
        '--gres=gpu:1',
        '--time=90',
        '--partition=gpu',
        '--qos=interactive',
      ]),
    );
    cluster.jobs.get('100')!.reason = 'Resources';
    await vi.advanceTimersByTimeAsync(100);
    expect(heard.waiting.at(-1)).toBe(
      "All 2 GPUs of partition gpu are in use: waiting for one to free up, you're next",
    );
    await slurm.close();
  });

  it("submits a profile's initial lifetime, and raises the job's time limit when its session is extended", async () => {
    const slurm = runner();
    await slurm.open();
    await slurm.start(spec('s1', { lifetimeMs: 30 * 60_000 }), observer());
    expect(cluster.submitted[0]).toContain('--time=30');
    await slurm.extend('s1', {}, 75 * 60_000);
    expect(cluster.jobs.get('100')?.minutes).toBe(75);
    // After a restart, the saved handle names the job.
    await slurm.extend('s2', { job: '100' }, 90 * 60_000);
    expect(cluster.jobs.get('100')?.minutes).toBe(90);
    await slurm.close();
  });

  it('says in words that the cluster does not let a job run longer, when Slurm refuses', async () => {
    const slurm = runner();
    await slurm.open();
    await slurm.start(spec('s1'), observer());
    cluster.operator = false;
    await expect(slurm.extend('s1', {}, 120 * 60_000)).rejects.toThrow(
      /^This cluster does not let the session's job run longer: Slurm refused to raise its time limit/,
    );
    expect(cluster.jobs.get('100')?.minutes).toBeUndefined();
    expect(logged.at(-1)).toBe('Slurm refused to raise the time limit of job 100');
    cluster.down = true;
    await expect(slurm.extend('s1', {}, 120 * 60_000)).rejects.toThrow(
      'The session cannot be extended now: the Slurm controller (slurmctld) does not answer; try again in a minute.',
    );
    await slurm.close();
  });

  it('does not take a job for gone from a list asked for before it was submitted', async () => {
    const slurm = runner();
    await slurm.open();
    cluster.slowMs = 80;
    await vi.advanceTimersByTimeAsync(100);
    await slurm.start(spec('s1'), observer());
    await vi.advanceTimersByTimeAsync(80);
    expect(heard.exited).toEqual([]);
    await vi.advanceTimersByTimeAsync(200);
    expect(heard.waiting.at(-1)).toBe('Submitted to Slurm: waiting for the scheduler');
    expect(heard.exited).toEqual([]);
    await slurm.close();
  });

  it('places the session once its running job wrote where it listens', async () => {
    const slurm = runner();
    await slurm.open();
    await slurm.start(spec('s1'), observer());
    Object.assign(cluster.jobs.get('100')!, { state: 'RUNNING', node: 'node2' });
    await vi.advanceTimersByTimeAsync(100);
    expect(heard.placed).toEqual([]);
    const placement = { host: '10.77.0.12', ports: { signaling: 47010, media: 47011 }, handle: { pid: 5 } };
    await writeFile(placedFile(dir, 's1'), JSON.stringify(placement));
    await vi.advanceTimersByTimeAsync(100);
    expect(heard.placed).toEqual([{ host: '10.77.0.12', ports: placement.ports, handle: { job: '100' } }]);
    await slurm.close();
  });

  it('places the session as its job writes where it listens, without asking squeue first', async () => {
    const slurm = runner();
    await slurm.open();
    const told = observer();
    // Resolved by the directory's watch alone: no timer is advanced, so no poll runs meanwhile.
    const placed = new Promise((resolve) => (told.placed = resolve));
    await slurm.start(spec('s1'), told);
    Object.assign(cluster.jobs.get('100')!, { state: 'RUNNING', node: 'node2' });
    await vi.advanceTimersByTimeAsync(100);
    const before = cluster.ran.length;
    const placement = { host: '10.77.0.12', ports: { signaling: 47010, media: 47011 }, handle: { pid: 5 } };
    // As the job writes it: whole, by a rename.
    writePrivate(placedFile(dir, 's1'), placement);
    expect(await placed).toEqual({ host: '10.77.0.12', ports: placement.ports, handle: { job: '100' } });
    expect(cluster.ran.slice(before)).toEqual([]);
    await slurm.close();
  });

  it('starts a session as an srun step, learns its job by name, places it as the job writes, and cancels it', async () => {
    const slurm = runner('step');
    await slurm.open();
    await slurm.start(spec('s1', { gpus: 1, slurm: { partition: 'gpu' } }), observer());
    expect(cluster.submitted).toEqual([]);
    const asked = cluster.stepped[0]!;
    expect(asked).toEqual(
      expect.arrayContaining(['--ntasks=1', '--input=none', '--job-name=streamgate-s1', '--gres=gpu:1']),
    );
    // srun's options, then the job's command: srun reads no option after the command's first word.
    expect(asked.slice(asked.indexOf(process.execPath)).at(-1)).toBe('s1');
    await vi.advanceTimersByTimeAsync(100);
    expect(heard.waiting.at(-1)).toBe('Starting on node2');
    const placement = { host: '10.77.0.12', ports: { signaling: 47010, media: 47011 } };
    writePrivate(placedFile(dir, 's1'), { ...placement, job: '100' });
    await vi.advanceTimersByTimeAsync(100);
    expect(heard.placed).toEqual([{ ...placement, handle: { job: '100' } }]);
    await slurm.stop('s1', undefined);
    expect(cluster.cancelled).toEqual(['100']);
    await slurm.close();
  });

  it('places an srun step by the id its job writes, before squeue has listed it', async () => {
    const slurm = runner('step');
    await slurm.open();
    const told = observer();
    const placed = new Promise((resolve) => (told.placed = resolve));
    await slurm.start(spec('s1'), told);
    const placement = { host: '10.77.0.12', ports: { signaling: 47010, media: 47011 } };
    writePrivate(placedFile(dir, 's1'), { ...placement, job: '100' });
    expect(await placed).toEqual({ ...placement, handle: { job: '100' } });
    await slurm.close();
  });

  it('cancels an srun job stopped before the runner saw it, found by its name', async () => {
    const slurm = runner('step');
    await slurm.open();
    await slurm.start(spec('s1'), observer());
    await slurm.stop('s1', undefined);
    expect(cluster.cancelled).toEqual(['100']);
    await slurm.close();
  });

  it("ends a session whose srun Slurm refused, in Slurm's words", async () => {
    const slurm = runner('step');
    await slurm.open();
    cluster.refuseStep = 'Unable to allocate resources: Invalid partition name specified';
    await slurm.start(spec('s1', { slurm: { partition: 'nope' } }), observer());
    await vi.advanceTimersByTimeAsync(100);
    expect(heard.exited).toEqual([
      {
        code: null,
        signal: null,
        lastWords: 'Unable to allocate resources: Invalid partition name specified',
        reason: 'was refused by Slurm: Unable to allocate resources: Invalid partition name specified',
      },
    ]);
    await slurm.close();
  });

  it('cancels a job that runs but never says where it listens, after the start-up time', async () => {
    const slurm = runner();
    await slurm.open();
    await slurm.start(spec('s1'), observer());
    Object.assign(cluster.jobs.get('100')!, { state: 'RUNNING', node: 'node1' });
    await vi.advanceTimersByTimeAsync(5_200);
    expect(cluster.cancelled).toEqual(['100']);
    expect(heard.exited[0]?.reason).toBe(
      'started on node1 but never said where it listens; its Slurm job was cancelled',
    );
    await slurm.close();
  });

  it('ends a session whose job was cancelled outside, or lost its node, with the reason', async () => {
    const slurm = runner();
    await slurm.open();
    await slurm.start(spec('s1'), observer());
    await slurm.start(spec('s2'), observer());
    cluster.jobs.get('100')!.state = 'CANCELLED';
    cluster.jobs.get('101')!.state = 'NODE_FAIL';
    cluster.jobs.get('101')!.node = 'node2';
    await vi.advanceTimersByTimeAsync(100);
    expect(heard.exited.map((exit) => exit.reason).sort()).toEqual([
      'was ended: its Slurm job was cancelled',
      'was ended: its node node2 failed',
    ]);
    await slurm.close();
  });

  it('refuses launches while slurmctld does not answer, lets running sessions go on, and recovers', async () => {
    const slurm = runner();
    await slurm.open();
    await slurm.start(spec('s1'), observer());
    cluster.jobs.get('100')!.state = 'RUNNING';
    cluster.down = true;
    await vi.advanceTimersByTimeAsync(100);
    expect(slurm.refuses()).toMatch(/^The Slurm cluster does not answer/);
    expect(slurm.isRunning({ job: '100' })).toBe(true);
    expect(heard.exited).toEqual([]);
    cluster.down = false;
    await vi.advanceTimersByTimeAsync(100);
    expect(slurm.refuses()).toBeUndefined();
    await slurm.close();
  });

  it("gives the portal's pages its nodes' addresses to connect to, and none while slurmctld does not answer", async () => {
    const slurm = runner();
    expect(await slurm.connectSources()).toEqual(['http://10.77.0.11:*', 'http://10.77.0.12:*']);
    cluster.down = true;
    expect(await slurm.connectSources()).toEqual([]);
  });

  it('adopts running jobs by name after a restart and cancels, saying so, the ones no session accounts for', async () => {
    cluster.jobs.set('7', { name: 'streamgate-mine', state: 'RUNNING', reason: 'None', node: 'node1' });
    cluster.jobs.set('8', { name: 'streamgate-stray', state: 'RUNNING', reason: 'None', node: 'node2' });
    cluster.jobs.set('9', { name: 'someone-else', state: 'RUNNING', reason: 'None', node: 'node2' });
    const slurm = runner();
    await slurm.open();
    expect(slurm.recover('mine', { handle: { job: '7' }, started: true })).toEqual({
      kind: 'running',
      handle: { job: '7' },
    });
    expect(slurm.recover('gone', { handle: { job: '3' }, started: true })).toEqual({
      kind: 'lost',
      reason: 'ended while the service was down',
    });
    expect(slurm.recover('never-ran', { handle: {}, started: false })).toEqual({ kind: 'absent' });
    await slurm.sweep((id) => id === 'mine');
    expect(cluster.cancelled).toEqual(['8']);
    expect(logged).toContain(
      'Cancelled Slurm job 8 (streamgate-stray): no session of this service accounts for it',
    );
    await slurm.close();
  });
});

describe("Slurm's outputs", () => {
  it('are read from their JSON, checked against the shape the runner reads', async () => {
    const tools = new SlurmTools(async () => JSON.stringify({ nodes: NODES }));
    expect(await tools.nodes()).toEqual([
      { name: 'node1', addr: '10.77.0.11', state: 'ALLOCATED', partitions: ['gpu'], gpus: 1, gpusInUse: 1 },
      { name: 'node2', addr: '10.77.0.12', state: 'MIXED', partitions: ['gpu'], gpus: 1, gpusInUse: 1 },
    ]);
    const drained = new SlurmTools(async () =>
      JSON.stringify({ nodes: [{ ...NODES[0], state: 'idle', state_flags: ['DRAIN'] }] }),
    );
    expect((await drained.nodes())[0]?.state).toBe('IDLE+DRAIN');
    const other = new SlurmTools(async () => JSON.stringify({ jobs: [{ job_id: '12', name: 'x' }] }));
    await expect(other.jobs('streamgate-')).rejects.toThrow('squeue --json printed JSON of another shape');
    // What squeue --json of Slurm 22.05 answers, with exit 0, while slurmctld is down.
    const down = new SlurmTools(async () =>
      JSON.stringify({
        errors: [{ error: 'Unable to contact slurm controller (connect failure)', errno: 1 }],
        jobs: [],
      }),
    );
    await expect(down.jobs('streamgate-')).rejects.toThrow(SlurmUnavailable);
    const text = new SlurmTools(async () => 'JOBID PARTITION NAME');
    await expect(text.jobs('streamgate-')).rejects.toThrow('squeue --json printed something other than JSON');
  });

  it('count GPUs in every gres form', () => {
    expect(gpusOf('gpu:2')).toBe(2);
    expect(gpusOf('gpu:a100:2(IDX:0-1)')).toBe(2);
    expect(gpusOf('gpu:1,shard:4')).toBe(1);
    expect(gpusOf('(null)')).toBe(0);
  });

  it('become words people can act on', async () => {
    const nodes = await new SlurmTools(async () => JSON.stringify({ nodes: NODES })).nodes();
    const job = {
      id: '5',
      name: 'streamgate-x',
      state: 'PENDING',
      reason: 'Resources',
      partition: 'gpu',
      node: '',
    };
    expect(waitingWords(job, 2, nodes, 1)).toBe(
      'All 2 GPUs of partition gpu are in use: waiting for one to free up, 2 sessions ahead',
    );
    expect(waitingWords({ ...job, reason: 'ReqNodeNotAvail, UnavailableNodes:node1' }, 0, nodes, 1)).toMatch(
      /^No node of partition gpu that can run it is up/,
    );
    expect(waitingWords({ ...job, reason: 'PartitionDown' }, 0, nodes, 1)).toBe(
      'Partition gpu is down: it waits until an administrator brings it back',
    );
  });
});
