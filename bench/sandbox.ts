/**
 * `npm run bench -- sandbox`: what the sandbox of CONTRACT section 17 costs.
 *
 * 1. A program's start, bare and sandboxed, in the same run: on one Xvfb, xterm is started bare and through
 *    sandbox/bwrap.ts (its own user, namespaces, seccomp filter, control group) by turns, and the time from
 *    spawn to its first window mapped is taken for each. Target: the sandbox adds at most 30 ms (median).
 * 2. The memory of an idle terminal session, all its processes: a real service launches the Terminal at
 *    1280x720 (the display 1920x1080), nobody watches for 5 s, and each process of the session's control groups
 *    is read: RSS (what `ps` shows, shared libraries counted whole in each process) and PSS (shared pages split
 *    among their users, the fair share of one session). Target: at most 150 MB.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findSandboxKit } from '../sandbox/availability.ts';
import { feedPipes, pipesFor, sandboxLaunch, sessionUid } from '../sandbox/bwrap.ts';
import { SessionCgroup } from '../sandbox/cgroups.ts';
import { startXServer } from '../streamer/display/x-server.ts';
import { XClient } from '../streamer/display/x-client.ts';
import { freePort } from '../e2e/support/ports.ts';
import { median } from './stats.ts';

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

/** kB of `field` (Rss, Pss) in /proc/<pid>/smaps_rollup; 0 when the process is gone. */
function memoryKb(pid: number, field: 'Rss' | 'Pss'): number {
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

async function idleSessionMemory(): Promise<void> {
  const kit = await findSandboxKit();
  if (typeof kit === 'string') throw new Error(`No sandbox here: ${kit}`);
  const dir = await mkdtemp(path.join(tmpdir(), 'streamgate-bench-'));
  const port = await freePort();
  await writeFile(
    path.join(dir, 'catalog.yaml'),
    `applications:
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
`,
  );
  const service = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: path.resolve(import.meta.dirname, '..'),
    env: {
      ...process.env,
      PORT: String(port),
      STREAMGATE_CATALOG: path.join(dir, 'catalog.yaml'),
      STREAMGATE_DATA_DIR: path.join(dir, 'state'),
      STREAMGATE_PORT_RANGE: '46900-46919',
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  const api = `http://127.0.0.1:${port}/api`;
  try {
    for (let i = 0; i < 300 && !(await fetch(`${api}/cfg/apps`).catch(() => null))?.ok; i++) await sleep(100);
    const created = (await (
      await fetch(`${api}/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'terminal', profile: 'desktop' }),
      })
    ).json()) as { id: string };
    for (let i = 0; i < 300 && (await fetch(`${api}/stream/${created.id}`)).status !== 200; i++)
      await sleep(100);
    await sleep(5_000);
    const group = new SessionCgroup(kit.hierarchy, created.id);
    const rows = new Map<string, { rss: number; pss: number; count: number }>();
    for (const pid of group.pids()) {
      const name = commandOf(pid);
      const row = rows.get(name) ?? { rss: 0, pss: 0, count: 0 };
      row.rss += memoryKb(pid, 'Rss');
      row.pss += memoryKb(pid, 'Pss');
      row.count++;
      rows.set(name, row);
    }
    let rss = 0;
    let pss = 0;
    console.log(
      '\nidle terminal session (1280x720 on a 1920x1080 display), memory of each of its processes:',
    );
    for (const [name, row] of [...rows].sort((a, b) => b[1].pss - a[1].pss)) {
      rss += row.rss;
      pss += row.pss;
      console.log(
        `  ${name.padEnd(22)} x${row.count}  RSS ${(row.rss / 1024).toFixed(1).padStart(6)} MB  PSS ${(row.pss / 1024).toFixed(1).padStart(6)} MB`,
      );
    }
    console.log(
      `  all                         RSS ${(rss / 1024).toFixed(1).padStart(6)} MB  PSS ${(pss / 1024).toFixed(1).padStart(6)} MB   target ≤ 150 MB`,
    );
    await fetch(`${api}/stream/${created.id}`, { method: 'DELETE' });
  } finally {
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
    await rm(dir, { recursive: true, force: true });
  }
}

await programStart();
await idleSessionMemory();
