/**
 * `npm run bench -- sandbox`: what the sandbox of CONTRACT section 17 costs.
 *
 * 1. A program's start, bare and sandboxed, in the same run: on one Xvfb, xterm is started bare and through
 *    sandbox/bwrap.ts (its own user, namespaces, seccomp filter, control group) by turns, and the time from
 *    spawn to its first window mapped is taken for each. Target: the sandbox adds at most 30 ms (median).
 * 2. The memory of an idle terminal session, all its processes: the real service, started as a user starts it,
 *    launches the Terminal at 1280x720 (the display 1920x1080) through its API, nobody watches, and each process
 *    below the service (this session's, the only one) is read twice: 5 s after ready, its encoder still running,
 *    and once its encoder rests (DEFAULT_ENCODER_REST_S after ready, and 5 s more): RSS (what `ps` shows, shared libraries counted whole in each process) and PSS (shared pages split
 *    among their users, the fair share of one session). Target: at most 150 MB.
 *    `npx tsx bench/sandbox.ts --memory 5` measures this alone, five times.
 * 3. The X server's start, on the host as the service's user and in the session's sandbox (its user, its control
 *    group, a bwrap of its own), by turns: from the start to a client connected (what a launch waits for before
 *    it starts the program). Target: the sandbox adds at most 30 ms (median) to a launch.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
// Part 1 alone measures from the sandbox's and the display's own modules: the cost of one sandbox start is a
// part of every launch that no entry point of the service gives apart from the rest (the X server, the program's
// own start), so the bench makes one display and starts the same program bare and sandboxed on it, by turns.
import { DEFAULT_ENCODER_REST_S } from '../protocol/launch.ts';
import { findSandboxKit } from '../sandbox/availability.ts';
import { feedPipes, pipesFor, sandboxLaunch, sessionUid } from '../sandbox/bwrap.ts';
import { SessionCgroup } from '../sandbox/cgroups.ts';
import { prepareProgramSandbox } from '../streamer/display/program-sandbox.ts';
import { startXServer } from '../streamer/display/x-server.ts';
import { XClient } from '../streamer/display/x-client.ts';
import { freePort } from '../e2e/support/ports.ts';
import { startService } from './service.ts';
import { childrenOf, descendantsOf } from '../test-support/processes.ts';
import { median } from './stats.ts';
import { sandboxSettings } from '../protocol/launch.ts';

const ROUNDS = 12;
const XTERM = ['xterm', '-fa', 'DejaVu Sans Mono', '-fs', '13'];

async function programStart(): Promise<void> {
  const kit = await findSandboxKit();
  if (typeof kit === 'string') throw new Error(`No sandbox here: ${kit}`);
  const x = await startXServer(1280, 720, () => undefined);
  process.env.XAUTHORITY = x.authFile;
  const client = await XClient.connect(x.display);
  const group = new SessionCgroup(kit.hierarchy, `bench-${process.pid}`);
  group.create({ cpus: 1, memoryMb: 4096, pids: 512 });
  const xauthority = readFileSync(x.authFile);
  /** Spawns one xterm and resolves with the milliseconds to its first window; then stops it. */
  const once = async (sandboxed: boolean): Promise<number> => {
    const mapped = new Promise<void>((resolve) => client.once('window', () => resolve()));
    const began = performance.now();
    let child: ChildProcess;
    if (sandboxed) {
      const launch = sandboxLaunch({
        command: XTERM,
        env: {},
        uid: sessionUid(47_999),
        seccomp: kit.seccomp,
        cgroup: group.dirs('program'),
        display: { socket: x.socket, xauthority },
        network: false,
        gpu: false,
      });
      child = spawn(launch.file, launch.args, {
        stdio: ['ignore', 'ignore', 'ignore', ...pipesFor(launch.extra)],
      });
      feedPipes(child, launch.extra);
    } else {
      child = spawn(XTERM[0] as string, XTERM.slice(1), {
        stdio: 'ignore',
        env: { ...process.env, DISPLAY: x.display, XAUTHORITY: x.authFile },
      });
    }
    await mapped;
    const ms = performance.now() - began;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await sleep(100);
    return ms;
  };
  const bare: number[] = [];
  const boxed: number[] = [];
  try {
    // One of each first, not counted: the first start of a program fills the page cache.
    await once(false);
    await once(true);
    for (let i = 0; i < ROUNDS; i++) {
      // Alternating which goes first, so that neither always follows the other.
      if (i % 2 === 0) {
        bare.push(await once(false));
        boxed.push(await once(true));
      } else {
        boxed.push(await once(true));
        bare.push(await once(false));
      }
    }
  } finally {
    client.close();
    await group.destroy();
    await x.stop();
  }
  const added = median(boxed) - median(bare);
  console.log(`xterm, spawn to first window (${ROUNDS} starts each, alternating):`);
  console.log(
    `  bare       median ${median(bare).toFixed(1)} ms (min ${Math.min(...bare).toFixed(1)}, max ${Math.max(...bare).toFixed(1)})`,
  );
  console.log(
    `  sandboxed  median ${median(boxed).toFixed(1)} ms (min ${Math.min(...boxed).toFixed(1)}, max ${Math.max(...boxed).toFixed(1)})`,
  );
  console.log(
    `  the sandbox adds ${added.toFixed(1)} ms (median)   target ≤ 30 ms   ${added <= 30 ? 'met' : 'NOT met'}`,
  );
}

/** Part 3: the X server's start and first client, on the host and in the sandbox, by turns. */
async function xServerStart(): Promise<void> {
  const sandbox = await prepareProgramSandbox(`bench-x-${process.pid}`, 47_998, sandboxSettings(undefined));
  /** Starts an X server (in the sandbox or not), connects a client, stops both: the milliseconds to connected. */
  const once = async (sandboxed: boolean): Promise<number> => {
    const began = performance.now();
    const x = await startXServer(1920, 1080, () => undefined, false, sandboxed ? sandbox : undefined);
    const client = await XClient.connect(x.display, x.authFile);
    const ms = performance.now() - began;
    client.close();
    await x.stop();
    return ms;
  };
  const host: number[] = [];
  const boxed: number[] = [];
  try {
    await once(false);
    await once(true);
    for (let i = 0; i < ROUNDS; i++) {
      const order = i % 2 === 0 ? [false, true] : [true, false];
      for (const sandboxed of order) (sandboxed ? boxed : host).push(await once(sandboxed));
    }
  } finally {
    await sandbox.close();
  }
  const added = median(boxed) - median(host);
  const line = (name: string, runs: number[]) =>
    `  ${name} median ${median(runs).toFixed(1)} ms (min ${Math.min(...runs).toFixed(1)}, max ${Math.max(...runs).toFixed(1)})`;
  console.log(`Xvfb 1920x1080, start to a client connected (${ROUNDS} starts each, alternating):`);
  console.log(line('on the host   ', host));
  console.log(line('in the sandbox', boxed));
  console.log(
    `  the X server's sandbox adds ${added.toFixed(1)} ms to a launch (median)   target ≤ 30 ms   ${added <= 30 ? 'met' : 'NOT met'}`,
  );
}

/** kB of `field` (Rss, Pss, Anonymous: what no file backs, the heaps and buffers) in /proc/<pid>/smaps_rollup; 0 when the process is gone. */
function memoryKb(pid: number, field: 'Rss' | 'Pss' | 'Anonymous'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'),
    );
    return Number(match?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function commandOf(pid: number): string {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const first = path.basename(argv[0] ?? '?');
    // The display host is node running display.mjs; bwrap shows twice (its monitor and the namespace's init).
    return first === 'node' ? 'display host (node)' : first;
  } catch {
    return '?';
  }
}

/**
 * The service as a user runs it (bench/service.ts), with one Terminal session and nothing else: every process
 * below the service is that session's. The door's relay (coturn, a child of the service too, shared by every
 * session) is left off.
 */
/** Each process below the service, read now and printed under `title`. */
function printSessionMemory(servicePid: number, title: string): void {
  const rows = new Map<string, { rss: number; pss: number; anon: number; count: number }>();
  let serviceOwn = { rss: 0, pss: 0, count: 0 };
  const ownChildren = childrenOf(servicePid);
  for (const pid of descendantsOf(servicePid)) {
    const name = commandOf(pid);
    // The service runs from source (node --import tsx): tsx's esbuild is the service's compiler, there once
    // for all sessions and with none, so it is shown apart and not counted as the session's.
    if (name === 'esbuild' && ownChildren.includes(pid)) {
      serviceOwn = {
        rss: serviceOwn.rss + memoryKb(pid, 'Rss'),
        pss: serviceOwn.pss + memoryKb(pid, 'Pss'),
        count: serviceOwn.count + 1,
      };
      continue;
    }
    const row = rows.get(name) ?? { rss: 0, pss: 0, anon: 0, count: 0 };
    row.rss += memoryKb(pid, 'Rss');
    row.pss += memoryKb(pid, 'Pss');
    row.anon += memoryKb(pid, 'Anonymous');
    row.count++;
    rows.set(name, row);
  }
  let rss = 0;
  let pss = 0;
  console.log(`\n${title}, memory of each of its processes:`);
  for (const [name, row] of [...rows].sort((a, b) => b[1].pss - a[1].pss)) {
    rss += row.rss;
    pss += row.pss;
    console.log(
      `  ${name.padEnd(22)} x${row.count}  RSS ${(row.rss / 1024).toFixed(1).padStart(6)} MB  PSS ${(row.pss / 1024).toFixed(1).padStart(6)} MB  of which anonymous ${(row.anon / 1024).toFixed(1).padStart(6)} MB`,
    );
  }
  console.log(
    `  all                         RSS ${(rss / 1024).toFixed(1).padStart(6)} MB  PSS ${(pss / 1024).toFixed(1).padStart(6)} MB   target ≤ 150 MB`,
  );
  if (serviceOwn.count > 0)
    console.log(
      `  not counted: the service's own esbuild (tsx's compiler) x${serviceOwn.count}  RSS ${(serviceOwn.rss / 1024).toFixed(1)} MB  PSS ${(serviceOwn.pss / 1024).toFixed(1)} MB`,
    );
}

async function idleSessionMemory(): Promise<void> {
  const catalog = `applications:
  - id: terminal
    name: Terminal
    description: xterm.
    versions:
      - {version: 379.0.0, description: xterm., launch: {display: {command: [xterm, -fa, DejaVu Sans Mono, -fs, '13'], opengl: false}}}
profiles:
  - id: desktop
    name: Desktop
    description: 1280x720, up to 1920x1080.
    applications: [{id: terminal, versions: ["*"]}]
    settings: {width: 1280, height: 720, max_width: 1920, max_height: 1080}
`;
  const env = { STREAMGATE_PORT_RANGE: '46900-46919', LOG_LEVEL: 'warn', STREAMGATE_TURN_PORT: 'off' };
  const service = await startService({ port: await freePort(), catalog, env });
  const api = `${service.base}/api`;
  try {
    const answer = await fetch(`${api}/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'terminal', profile: 'desktop' }),
    });
    if (answer.status >= 300)
      throw new Error(`POST /stream answered ${answer.status}: ${await answer.text()}`);
    const created = (await answer.json()) as { id: string };
    for (let i = 0; i < 300 && (await fetch(`${api}/stream/${created.id}`)).status !== 200; i++)
      await sleep(100);
    const readyAt = Date.now();
    await sleep(5_000);
    printSessionMemory(
      service.pid,
      'idle terminal session (1280x720 on a 1920x1080 display), 5 s after ready',
    );
    await sleep(Math.max(0, readyAt + (DEFAULT_ENCODER_REST_S + 5) * 1000 - Date.now()));
    printSessionMemory(
      service.pid,
      `the same, nobody having watched for ${DEFAULT_ENCODER_REST_S + 5} s: its encoder at rest`,
    );
    await fetch(`${api}/stream/${created.id}`, { method: 'DELETE' });
  } finally {
    await service.stop();
  }
}

// `--memory [runs]`: the idle session's memory alone, that many times (a figure of several runs, as the target asks).
const at = process.argv.indexOf('--memory');
if (at < 0) {
  await programStart();
  await xServerStart();
  await idleSessionMemory();
} else {
  const runs = Math.max(1, Number(process.argv[at + 1]) || 1);
  for (let run = 0; run < runs; run++) await idleSessionMemory();
}
