/**
 * The two-node Slurm test cluster of scripts/slurm-cluster.sh for tests: started once, its environment (SLURM_CONF
 * and the rest) handed to every Slurm tool the test runs, and stopped on every way out: by the test, and, should the
 * test process exit with it running, by an exit hook. It needs root (network namespaces, a bridge): a machine that
 * cannot make them fails the start with the script's own words, never a skip.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');
/** The script that starts and stops the cluster. */
export const CLUSTER_SCRIPT = path.join(root, 'scripts/slurm-cluster.sh');
/** What the script makes, by name: its bridge and one network namespace per node. */
export const CLUSTER_BRIDGE = 'sgbr0';
const NAMESPACE_PREFIX = 'sg-';

export interface TestClusterNode {
  /** Slurm's node name: node1, node2. */
  name: string;
  /** Its NodeAddr: the address its jobs bind, reached from the host through the bridge. */
  addr: string;
}

export interface TestCluster {
  /** SLURM_CONF, STREAMGATE_TEST_CLUSTER_DIR, STREAMGATE_TEST_MUNGE_SOCKET, STREAMGATE_TEST_CLUSTER_NODES. */
  env: Record<string, string>;
  nodes: TestClusterNode[];
  /** Runs a Slurm tool (sbatch, squeue, sinfo, scontrol, scancel) against this cluster; resolves with its stdout. */
  slurm(tool: string, args: string[]): Promise<string>;
  /** slurmctld stopped (SIGTERM) and started again from its saved state: for "the controller is down" cases. */
  stopController(): Promise<void>;
  startController(): Promise<void>;
  /** Every process of a node's namespace (its slurmd and jobs) killed with SIGKILL, as when the node dies. */
  killNode(name: string): Promise<void>;
  /** The node's slurmd started again in its namespace. */
  startNode(name: string): Promise<void>;
  /** Cancels every job and removes everything the start made; resolves once nothing is left. */
  stop(): Promise<void>;
}

export interface TestClusterOptions {
  /** Seconds to wait for both nodes to be idle (the script's default: 60). */
  timeoutS?: number;
  /** Lines added to slurm.conf, e.g. ['SlurmdTimeout=10']. */
  extraConfig?: string[];
}

/** The error of a script or tool that failed: its own words (stderr), not just an exit code. */
function failure(what: string, error: unknown): Error {
  const e = error as { stderr?: string; stdout?: string; message?: string };
  const said = `${e.stderr ?? ''}${e.stdout ?? ''}`.trim() || e.message || String(error);
  return new Error(`${what} failed: ${said}`);
}

/** Parses the KEY=VALUE lines the script prints (and writes to <dir>/env). */
export function parseEnvLines(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match) env[match[1] as string] = match[2] as string;
  }
  return env;
}

const running = new Set<string>();
let hooked = false;
/** A test process that exits with a cluster running stops it (synchronously: nothing else runs in 'exit'). */
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const dir of running) {
      try {
        execFileSync('bash', [CLUSTER_SCRIPT, 'stop'], {
          env: { ...process.env, STREAMGATE_TEST_CLUSTER_DIR: dir },
          stdio: 'ignore',
        });
      } catch {
        // Nothing more can be done while exiting; `scripts/slurm-cluster.sh stop` cleans up later.
      }
    }
  });
}

export async function startTestCluster(options: TestClusterOptions = {}): Promise<TestCluster> {
  const startEnv: NodeJS.ProcessEnv = { ...process.env };
  delete startEnv.STREAMGATE_TEST_CLUSTER_DIR;
  if (options.timeoutS !== undefined) startEnv.STREAMGATE_TEST_CLUSTER_TIMEOUT = String(options.timeoutS);
  if (options.extraConfig) startEnv.STREAMGATE_TEST_SLURM_EXTRA = options.extraConfig.join('\n');
  let stdout: string;
  try {
    ({ stdout } = await run('bash', [CLUSTER_SCRIPT, 'start'], { env: startEnv, timeout: 180_000 }));
  } catch (error) {
    throw failure('Starting the Slurm test cluster (scripts/slurm-cluster.sh start)', error);
  }
  const env = parseEnvLines(stdout);
  const dir = env.STREAMGATE_TEST_CLUSTER_DIR;
  const conf = env.SLURM_CONF;
  if (!dir || !conf) throw new Error(`scripts/slurm-cluster.sh start printed no SLURM_CONF: ${stdout}`);
  running.add(dir);
  hookExit();
  const nodes = (env.STREAMGATE_TEST_CLUSTER_NODES ?? '').split(',').map((pair) => {
    const [name = '', addr = ''] = pair.split('=');
    return { name, addr };
  });
  const toolEnv = { ...process.env, ...env };
  const node = (name: string) => {
    if (!nodes.some((n) => n.name === name)) throw new Error(`No node ${name} in the test cluster`);
    return name;
  };
  const slurm = async (tool: string, args: string[]) => {
    try {
      return (await run(tool, args, { env: toolEnv, timeout: 30_000 })).stdout;
    } catch (error) {
      throw failure(`${tool} ${args.join(' ')}`, error);
    }
  };
  const sh = async (what: string, command: string, args: string[]) => {
    try {
      await run(command, args, { env: toolEnv, timeout: 30_000 });
    } catch (error) {
      throw failure(what, error);
    }
  };
  return {
    env,
    nodes,
    slurm,
    stopController: () =>
      sh('Stopping slurmctld', 'bash', [
        '-c',
        'pid=$(cat "$1") && kill "$pid" && while kill -0 "$pid"; do sleep 0.1; done 2>/dev/null',
        '-',
        path.join(dir, 'run/slurmctld.pid'),
      ]),
    startController: () => sh('Starting slurmctld', 'slurmctld', ['-f', conf]),
    killNode: (name) =>
      sh(`Killing ${name}`, 'bash', [
        '-c',
        'ip netns pids "$1" | xargs -r kill -KILL',
        '-',
        NAMESPACE_PREFIX + node(name),
      ]),
    startNode: (name) =>
      sh(`Starting ${name}`, 'nsenter', [
        `--net=/var/run/netns/${NAMESPACE_PREFIX}${node(name)}`,
        'slurmd',
        '-N',
        name,
        '-f',
        conf,
      ]),
    stop: async () => {
      try {
        await run('bash', [CLUSTER_SCRIPT, 'stop'], {
          env: { ...process.env, STREAMGATE_TEST_CLUSTER_DIR: dir },
          timeout: 60_000,
        });
      } catch (error) {
        throw failure('Stopping the Slurm test cluster (scripts/slurm-cluster.sh stop)', error);
      } finally {
        running.delete(dir);
      }
    },
  };
}

/** The live (not zombie) processes of Slurm and munge on this machine, as "pid name". */
export function slurmProcesses(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // it ended meanwhile
    }
    // "pid (comm) state ...": comm may hold spaces and parentheses, so the last ')' ends it.
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state !== 'Z' && /^(slurm|munge)/.test(name)) found.push(`${pid} ${name}`);
  }
  return found;
}

/** What a test cluster leaves on the machine: its namespaces, its links and its folder, as words. */
export async function clusterLeftovers(dir: string): Promise<string[]> {
  const left: string[] = [];
  const namespaces = existsSync('/var/run/netns') ? readdirSync('/var/run/netns') : [];
  for (const ns of namespaces.filter((n) => n.startsWith(NAMESPACE_PREFIX))) left.push(`namespace ${ns}`);
  const { stdout } = await run('ip', ['-o', 'link', 'show']);
  for (const link of stdout.split('\n').map((line) => line.split(': ')[1]?.split('@')[0] ?? '')) {
    if (link === CLUSTER_BRIDGE || link.startsWith('sgv-')) left.push(`link ${link}`);
  }
  if (existsSync(dir)) left.push(`folder ${dir}`);
  return left;
}
