/**
 * The X server inside the sandbox (issue 33): a hostile X client (support/hostile-x.py), run as a session's program
 * of a real service, makes its X server work for it, which once ran as root outside every limit:
 * - pixmaps until X memory runs out: the display's memory counts against the session's limit, the kernel stops the
 *   X server there, and the session fails in words; the host keeps its memory;
 * - XSetFontPath to a folder of its own /tmp through /proc (the host's and the server's): refused, the server sees
 *   neither the host's processes nor the program's files;
 * - a pixmap fill-and-copy loop: the X server's CPU counts against the session's one-core cap with the program's;
 * - every /proc/<pid>/environ it can read, and on the host every process of the session: nothing of the service's
 *   own environment (a canary variable the service is started with).
 */
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cpuSeconds } from '../bench/stats.ts';
import { call } from './support/http.ts';
import { figure } from './support/profile.ts';
import { processesRunning, uidOf } from './support/sandbox.ts';
import { readySession, viewerTicket } from './support/session.ts';
import { openViewer, type Viewer } from './support/whep-viewer.ts';
import {
  displayHostOf,
  removeWorkDir,
  startService,
  stopStartedServices,
  until,
  type Service,
} from './support/service.ts';

const SERVICE_PORT = 18272;
const PORTS = { first: 25800, last: 25819 };
const MEMORY_MB = 512;
/** In the service's environment only: no process of a session may carry it. */
const CANARY = 'STREAMGATE_CANARY_SECRET';

function catalog(): string {
  const mode = (id: string, what: string) => `  - id: ${id}
    name: ${what}
    description: The hostile X client, ${what}.
    versions:
      - version: 1.0.0
        description: ${what}.
        launch:
          display:
            command: [sh, -c, 'xterm & sleep 1; exec /usr/bin/python3 ./hostile-x.py ${id.slice(2)}']
            files: [hostile-x.py, host-pid]
            opengl: false
`;
  // Busy loops, each a process of its own, beside the program's window.
  const busy = (id: string, loops: number) => `  - id: ${id}
    name: ${loops} busy loops
    description: ${loops} processes that never sleep.
    versions:
      - version: 1.0.0
        description: Busy.
        launch:
          display:
            command: [sh, -c, 'for i in $(seq ${loops}); do sh -c "while :; do :; done" & done; exec xterm']
            opengl: false
`;
  return `applications:
  - id: sample
    name: Sample
    description: The sample streaming application, another person's stream.
    versions:
      - {version: 1.0.0, description: Real.}
  - id: x-copy-loops
    name: Four copy loops
    description: The hostile X client's copy loop, four times.
    versions:
      - version: 1.0.0
        description: Four copy loops.
        launch:
          display:
            command: [sh, -c, 'for i in 1 2 3 4; do /usr/bin/python3 ./hostile-x.py copy-loop 2048 & done; exec xterm']
            files: [hostile-x.py]
            opengl: false
${mode('x-pixmaps', 'pixmaps')}${mode('x-font-path', 'font path')}${mode('x-copy-loop', 'copy loop')}${mode('x-environ', 'environ')}${busy('busy-four', 4)}${busy('busy-one', 1)}profiles:
  - id: tight
    name: Tight
    description: Small limits.
    applications: [{id: sample, versions: ["*"]}, {id: x-copy-loops, versions: ["*"]}, {id: x-pixmaps, versions: ["*"]}, {id: x-font-path, versions: ["*"]}, {id: x-copy-loop, versions: ["*"]}, {id: x-environ, versions: ["*"]}]
    settings: {width: 320, height: 180, fps: 15, max_width: 640, max_height: 360, startup_timeout_s: 60,
               limits: {memory_mb: ${MEMORY_MB}, cpus: 1, pids: 64}}
  - id: wide
    name: Wide
    description: Two cores a session.
    applications: [{id: busy-four, versions: ["*"]}, {id: busy-one, versions: ["*"]}]
    settings: {width: 320, height: 180, fps: 15, max_width: 640, max_height: 360, startup_timeout_s: 60,
               limits: {cpus: 2, pids: 64}}
`;
}

let service: Service;
let workDir = '';

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), 'streamgate-rel-'));
  copyFileSync(path.join(import.meta.dirname, 'support', 'hostile-x.py'), path.join(workDir, 'hostile-x.py'));
  writeFileSync(path.join(workDir, 'host-pid'), '');
  service = await startService({
    port: SERVICE_PORT,
    sessionPorts: PORTS,
    workDir,
    catalog: catalog(),
    env: { [CANARY]: 'do-not-leak' },
  });
}, 120_000);

// Each test ends its sessions, whatever became of it: a session left running would keep the next one queued.
afterEach(async () => {
  const live = await call(`${service.api}/stream`);
  const items = (live.body.items ?? []) as { id: string }[];
  await Promise.all(items.map((s) => call(`${service.api}/stream/${s.id}`, { method: 'DELETE' })));
});

afterAll(async () => {
  await stopStartedServices();
  if (workDir) await removeWorkDir(workDir);
});

/** The session's log: its program's error output. */
function sessionLog(id: string): string {
  try {
    return readFileSync(path.join(service.dataDir, 'logs', `${id}.log`), 'utf8');
  } catch {
    return '';
  }
}

/** The host user of a session whose signaling URL is `signaling` (sandbox/bwrap.ts). */
function sessionUid(signaling: string): number {
  return 1_500_000_000 + Number(new URL(signaling).port);
}

/** The session's X server on the host: Xvfb, run as the session's user. */
function xServerOf(uid: number): number {
  const [pid] = processesRunning('Xvfb', true).filter((p) => uidOf(p) === uid);
  if (pid === undefined) throw new Error(`no X server runs as user ${uid}`);
  return pid;
}

function statusField(pid: number, field: string): number {
  return Number(
    new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1],
  );
}

function memAvailableMb(): number {
  return Number(/^MemAvailable:\s+(\d+)/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1]) / 1024;
}

/** Every process below `root`, itself included. */
function tree(root: number): number[] {
  const found = [root];
  for (let i = 0; i < found.length; i += 1) {
    try {
      const pid = found[i] as number;
      const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8');
      found.push(...children.split(' ').filter(Boolean).map(Number));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The lines `escape <name>: <result>` of a hostile program's log, once it says it is done. */
async function escapes(id: string): Promise<Map<string, string>> {
  const log = await until(`session ${id}'s program to finish`, () => {
    const text = sessionLog(id);
    return text.includes('hostile-x: done') ? text : undefined;
  });
  return new Map([...log.matchAll(/^escape ([\w-]+): (.*)$/gm)].map(([, name, result]) => [name!, result!]));
}

describe('an X server in the sandbox', () => {
  it('stops at the session’s memory limit when a program fills it with pixmaps; the session fails in words', async () => {
    const availableBefore = memAvailableMb();
    const created = await call(`${service.api}/stream`, {
      method: 'POST',
      body: { id: 'x-pixmaps', profile: 'tight' },
    });
    const id = created.body.id as string;
    expect(id, created.text).toBeTruthy();
    let peakRssMb = 0;
    let lowestAvailable = availableBefore;
    const failed = await until(
      'the session to fail',
      async () => {
        for (const pid of processesRunning('Xvfb', true)) {
          try {
            // A process being killed has no VmRSS any more.
            const rssKb = statusField(pid, 'VmRSS');
            if (uidOf(pid) >= 1_500_000_000 && Number.isFinite(rssKb))
              peakRssMb = Math.max(peakRssMb, rssKb / 1024);
          } catch {
            // gone meanwhile
          }
        }
        lowestAvailable = Math.min(lowestAvailable, memAvailableMb());
        const res = await call(`${service.api}/stream/${id}`);
        return res.status === 410 ? res : undefined;
      },
      90_000,
      50,
    );
    figure(
      'X server memory at its peak, against the session limit',
      `${peakRssMb.toFixed(0)} of ${MEMORY_MB}`,
      'MB',
    );
    figure('host memory the pixmaps took at most', (availableBefore - lowestAvailable).toFixed(0), 'MB');
    expect(failed.body.detail).toMatch(new RegExp(`display ran out of its ${MEMORY_MB} MB of memory`));
    expect(peakRssMb).toBeLessThanOrEqual(MEMORY_MB);
    expect(sessionLog(id)).toMatch(/^pixmap 1$/m);
    expect((await call(`${service.url}/healthz`)).status).toBe(200);
  });

  it('refuses a font path through /proc to the program’s own files, and sees none of the host’s processes', async () => {
    writeFileSync(path.join(workDir, 'host-pid'), '');
    const session = await readySession(service, 'x-font-path', 'tight');
    const uid = sessionUid(session.signaling);
    // The program's pid on the host, which an attacker finds by trying pids: given to it here.
    const program = await until('the hostile X client to run', () =>
      processesRunning('/usr/bin/python3', true).find((pid) => uidOf(pid) === uid),
    );
    writeFileSync(path.join(workDir, 'host-pid'), String(program));
    const tried = await escapes(session.id);
    expect([...tried.keys()].sort()).toEqual(
      ['font-path-host-proc', 'font-path-own-tmp', 'font-path-self-proc', 'font-path-server-proc'].sort(),
    );
    for (const [name, result] of tried) expect(result, name).toMatch(/^refused \(BadValue\)/);
    // The X server's root is its sandbox's, not the host's.
    const x = xServerOf(uid);
    expect(readdirSync(`/proc/${x}/root/`)).not.toContain('work');
    const seen = readdirSync(`/proc/${x}/root/proc`).filter((name) => /^\d+$/.test(name));
    expect(seen.length).toBeLessThan(5);
    expect((await call(`${service.api}/stream/${session.id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('counts the X server’s CPU against the session’s one core, with its program’s', async () => {
    const session = await readySession(service, 'x-copy-loop', 'tight');
    const uid = sessionUid(session.signaling);
    await until('the copy loop to run', () => sessionLog(session.id).includes('copy-loop: running'));
    const x = xServerOf(uid);
    const processes = () =>
      tree(x).concat(processesRunning('/usr/bin/python3', true).filter((p) => uidOf(p) === uid));
    const seconds = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    await sleep(1_000);
    const pids = processes();
    const before = { x: cpuSeconds(x), all: seconds(pids), at: performance.now() };
    await sleep(5_000);
    const elapsed = (performance.now() - before.at) / 1000;
    const xCores = (cpuSeconds(x) - before.x) / elapsed;
    const allCores = (seconds(pids) - before.all) / elapsed;
    figure('copy loop: the X server’s CPU', xCores.toFixed(2), 'core');
    figure('copy loop: the X server and its program together (cap 1 core)', allCores.toFixed(2), 'core');
    expect(xCores).toBeGreaterThan(0.1);
    expect(allCores).toBeLessThanOrEqual(1.1);
    expect((await call(`${service.api}/stream/${session.id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('gives no process of a session anything of the service’s environment, inside or on the host', async () => {
    const session = await readySession(service, 'x-environ', 'tight');
    const log = await until('the environments to be read', () => {
      const text = sessionLog(session.id);
      return text.includes('hostile-x: done') ? text : undefined;
    });
    const readable = Number(/^environ readable: (\d+)$/m.exec(log)?.[1]);
    const names = (/^environ names: (.*)$/m.exec(log)?.[1] ?? '').split(' ');
    expect(readable).toBeGreaterThanOrEqual(2);
    expect(names).toContain('DISPLAY');
    expect(names.filter((name) => name.startsWith('STREAMGATE_'))).toEqual([]);
    // On the host: the display host and all it started (its X server's and program's sandboxes, the encoder).
    const host = displayHostOf(session.id);
    if (host === undefined) throw new Error('no display host of the session');
    const all = tree(host);
    expect(all.length).toBeGreaterThanOrEqual(5);
    const carriers = all.filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').includes(CANARY);
      } catch {
        return false;
      }
    });
    expect(carriers.map((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim())).toEqual([]);
    figure('processes of a session whose environment was read', all.length);
    expect((await call(`${service.api}/stream/${session.id}`, { method: 'DELETE' })).status).toBe(204);
  });
});

describe('one CPU share per session', () => {
  it('gives a session of four busy processes no more of the machine than a session of one', async () => {
    const four = await readySession(service, 'busy-four', 'wide');
    const one = await readySession(service, 'busy-one', 'wide');
    // Everything each session runs as its own user: its program's processes and its X server.
    const ofUser = (uid: number) =>
      readdirSync('/proc')
        .filter((name) => /^\d+$/.test(name))
        .map(Number)
        .filter((pid) => {
          try {
            return uidOf(pid) === uid;
          } catch {
            return false;
          }
        });
    const sessions = [four, one].map((s) => ofUser(sessionUid(s.signaling)));
    const seconds = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    await sleep(1_000);
    const before = sessions.map(seconds);
    const started = performance.now();
    await sleep(5_000);
    const elapsed = (performance.now() - started) / 1000;
    const [fourCores, oneCores] = sessions.map((pids, i) => (seconds(pids) - (before[i] ?? 0)) / elapsed) as [
      number,
      number,
    ];
    figure(
      'four busy processes against one, each session capped at 2 cores',
      `${fourCores.toFixed(2)} : ${oneCores.toFixed(2)}`,
      'core',
    );
    // By process, the four would take four fifths of what the two sessions get; by session, half (whatever else
    // the machine runs meanwhile takes from both alike).
    expect(fourCores / (fourCores + oneCores)).toBeLessThan(0.67);
  });
});

/**
 * The times between video packets `viewer` received over `ms` (looked at every 2 ms): the longest, and the 99th
 * percentile, which one hiccup of this 2-core machine (a collection, a context switch of the test's own process)
 * does not move.
 */
async function frameGaps(viewer: Viewer, ms: number): Promise<{ worst: number; p99: number }> {
  let last = viewer.videoPackets();
  let lastAt = performance.now();
  const gaps: number[] = [];
  const end = lastAt + ms;
  while (performance.now() < end) {
    await sleep(2);
    const now = performance.now();
    const packets = viewer.videoPackets();
    if (packets !== last) {
      gaps.push(now - lastAt);
      last = packets;
      lastAt = now;
    }
  }
  gaps.push(performance.now() - lastAt);
  gaps.sort((a, b) => a - b);
  return { worst: gaps.at(-1) ?? ms, p99: gaps[Math.floor(0.99 * (gaps.length - 1))] ?? ms };
}

describe('another person’s stream beside a session that makes its X server copy pixmaps', () => {
  it('keeps its frame gaps within 1.5 times its idle ones (99th percentile), and never freezes', async () => {
    const other = await readySession(service, 'sample', 'tight');
    const viewer = await openViewer(
      other.signaling,
      20_000,
      (await viewerTicket(service.api, other.id)).ticket,
    );
    try {
      await until('video to flow', () => viewer.videoPackets() > 20);
      const idle = await frameGaps(viewer, 5_000);
      const busy = await readySession(service, 'x-copy-loops', 'tight');
      await until(
        'the four copy loops to run',
        () => sessionLog(busy.id).split('copy-loop: running').length > 4,
      );
      await sleep(1_000);
      const loaded = await frameGaps(viewer, 5_000);
      figure(
        'another stream’s frame gaps (99th percentile / worst), idle then beside four copy loops',
        `${idle.p99.toFixed(0)} / ${idle.worst.toFixed(0)} then ${loaded.p99.toFixed(0)} / ${loaded.worst.toFixed(0)}`,
        'ms',
      );
      expect(loaded.p99).toBeLessThanOrEqual(idle.p99 * 1.5);
      // One hiccup may come in either window (a worst of 130 ms against 70 idle was seen once in a full run), but
      // not a freeze: the stream of a quarter-second gap would be one a person sees stop.
      expect(loaded.worst).toBeLessThan(250);
      expect((await call(`${service.api}/stream/${busy.id}`, { method: 'DELETE' })).status).toBe(204);
    } finally {
      await viewer.close();
      await call(`${service.api}/stream/${other.id}`, { method: 'DELETE' });
    }
  });
});
