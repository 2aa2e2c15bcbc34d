/**
 * Each session in its own sandbox (CONTRACT section 17, issue 22): a hostile program, run as a session of a real
 * service, tries every escape an attacker with an ordinary account used against the Terminal, and each is
 * refused; a memory hog fails its own session in words while the service stays up; and when a session ends,
 * nothing it started (a setsid child, a double fork) is left.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/http.ts';
import { readySession } from './support/session.ts';
import {
  alive,
  processesWith,
  removeWorkDir,
  root,
  startService,
  stopStartedServices,
  until,
  type Service,
} from './support/service.ts';

const SERVICE_PORT = 18270;
const PORTS = { first: 45760, last: 45779 };
const MARK = `escape${process.pid}`;
/** Leftovers of a display host killed outright, on display :987 (pid 2147483646 never runs). */
const STALE = {
  cookies: path.join(tmpdir(), `streamgate-x-stale${process.pid}`),
  lock: '/tmp/.X987-lock',
  socket: '/tmp/.X11-unix/X987',
};

let service: Service;
let log = '';
let hostile = '';

/** The catalog: the hostile program, and a memory hog, under a profile of small limits. */
function catalog(dataDir: string): string {
  const env = {
    KEY: path.join(dataDir, 'viewer-ticket.key'),
    STATE: path.join(dataDir, 'sessions.json'),
    REPO: root,
    DATA: dataDir,
    SERVICE_PORT: String(SERVICE_PORT),
    MARK,
  };
  const hog = 'xterm & sleep 3; exec /usr/bin/python3 -c "b = []\nwhile True: b.append(b\'x\' * (16 << 20))"';
  return `applications:
  - id: hostile
    name: Hostile
    description: Tries every escape.
    versions:
      - version: 1.0.0
        description: The escapes.
        launch:
          display:
            command: [sh, -c, 'sh ./hostile-program.sh & exec xterm']
            files: [hostile-program.sh, target-pid]
            env: ${JSON.stringify(env)}
      - version: 0.9.0
        description: A memory hog.
        launch: {display: {command: [sh, -c, ${JSON.stringify(hog)}]}}
profiles:
  - id: tight
    name: Tight
    description: Small limits.
    applications: [{id: hostile, versions: ["*"]}]
    settings: {width: 320, height: 180, fps: 15, max_width: 640, max_height: 360, startup_timeout_s: 60,
               limits: {memory_mb: 256, pids: 64}}
`;
}

/** The session's log: the program's error output. */
function sessionLog(id: string): string {
  try {
    return readFileSync(path.join(service.dataDir, 'logs', `${id}.log`), 'utf8');
  } catch {
    return '';
  }
}

/** The state letter of a process (R, S, T for stopped...). */
function stateOf(pid: number): string | undefined {
  return /\)\s+(\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
}

/** The real uid of a process. */
function uidOf(pid: number): number {
  return Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
}

/** Live processes whose command line is exactly `command` (or whose program is, with `program`). */
function processesRunning(command: string, program = false): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
        return program ? argv[0] === command : argv.join(' ').trim() === command;
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter(alive);
}

/** The parent of a process. */
function parentOf(pid: number): number {
  return Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
}

/** Live processes of a host user. */
function processesOf(uid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return uidOf(pid) === uid && alive(pid);
      } catch {
        return false;
      }
    });
}

beforeAll(async () => {
  const workDir = await mkdtemp(path.join(tmpdir(), 'streamgate-rel-'));
  copyFileSync(
    path.join(import.meta.dirname, 'support/hostile-program.sh'),
    path.join(workDir, 'hostile-program.sh'),
  );
  // The pid to attack, known once the service runs: the program reads it from this file of its catalog's.
  writeFileSync(path.join(workDir, 'target-pid'), '');
  // What a host killed with its service leaves (a cookie folder, a display's lock and socket), and a data
  // directory an older version left open to all: the start sweeps the one and closes the other.
  mkdirSync(STALE.cookies);
  // Xvfb makes the sockets' folder, sticky and open to all, on a machine's first display.
  if (!existsSync('/tmp/.X11-unix')) {
    mkdirSync('/tmp/.X11-unix');
    chmodSync('/tmp/.X11-unix', 0o1777);
  }
  writeFileSync(STALE.lock, '2147483646\n');
  writeFileSync(STALE.socket, '');
  mkdirSync(path.join(workDir, 'state'), { mode: 0o755 });
  service = await startService({
    port: SERVICE_PORT,
    sessionPorts: PORTS,
    workDir,
    catalog: catalog(path.join(workDir, 'state')),
  });
  writeFileSync(path.join(workDir, 'target-pid'), String(service.child.pid));
}, 120_000);

afterAll(async () => {
  await stopStartedServices();
  if (service) await removeWorkDir(service.workDir);
});

describe('a hostile program in its sandbox', () => {
  let id = '';
  /** The session's own user on the host: the service's base plus its signaling port (sandbox/bwrap.ts). */
  let uid = 0;

  it('is refused every escape it tries', async () => {
    const session = await readySession(service, 'hostile', 'tight');
    id = session.id;
    uid = 1_500_000_000 + Number(new URL(session.signaling).port);
    log = await until('the hostile program to finish', () => {
      const text = sessionLog(id);
      return text.includes('hostile: done') ? text : undefined;
    }).catch((error: Error) => {
      throw new Error(`${error.message}; its log:\n${sessionLog(id)}`);
    });
    hostile = log;
    const escapes = [...log.matchAll(/^escape ([\w-]+): (\S+)/gm)].map(([, name, result]) => [name, result]);
    expect(escapes.map(([name]) => name).sort()).toEqual(
      [
        'bpf',
        'io_uring_setup',
        'keyctl',
        'list-repository',
        'mount',
        'new-user-namespace',
        'perf_event_open',
        'ptrace',
        'reach-service',
        'read-key',
        'read-state',
        'see-service',
        'stop-service',
        'userfaultfd',
        'write-data',
        'write-dist-apps',
        'write-host-tmp',
        'write-repository',
      ].sort(),
    );
    // Writing its own /tmp works; it is simply not the host's.
    const refused = escapes.filter(([name]) => name !== 'write-host-tmp');
    expect(refused.filter(([, result]) => result !== 'refused')).toEqual([]);
    expect(existsSync(`/tmp/pwned-${MARK}`)).toBe(false);
    expect(existsSync(path.join(root, `pwned-${MARK}`))).toBe(false);
    expect(existsSync(path.join(service.dataDir, `pwned-${MARK}`))).toBe(false);
  });

  it('runs as a user of its own, without privileges, seeing only its own processes', () => {
    expect(hostile).toMatch(/^uid: 1000 user$/m);
    expect(hostile).toMatch(/^seccomp: Seccomp:2$/m);
    expect(hostile).toMatch(/^capabilities: CapEff:0000000000000000$/m);
    expect(Number(/^processes: (\d+)$/m.exec(hostile)?.[1])).toBeLessThan(15);
    // On the host, its program runs as the session's own user, neither root nor the service's user.
    const xterm = processesRunning('xterm');
    expect(xterm.length).toBeGreaterThan(0);
    expect(xterm.map(uidOf)).toContain(uid);
  });

  it('fills no more than its /dev/shm and starts no more processes than its limit', async () => {
    expect(Number(/^shm-filled-mb: (\d+)$/m.exec(hostile)?.[1])).toBeLessThanOrEqual(64);
    expect(Number(/^forks: (\d+)$/m.exec(hostile)?.[1])).toBeLessThanOrEqual(64);
    expect((await call(`${service.url}/healthz`)).status).toBe(200);
    expect(stateOf(service.child.pid!)).not.toBe('T');
  });

  it('holds no secret in the environment of any process of the session', () => {
    // The display host and its encoder name the session.
    const pids = processesWith(id);
    expect(pids.length).toBeGreaterThanOrEqual(2);
    for (const pid of [...pids, service.child.pid!]) {
      let environ = '';
      try {
        environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      } catch {
        continue; // exited meanwhile
      }
      expect(environ).not.toMatch(/STREAMGATE_VIEWER_SECRET=/);
    }
  });

  it('leaves nothing running once its session ends, a setsid child and a double fork included', async () => {
    expect(processesRunning('sleep 3599').length + processesRunning('sleep 3598').length).toBe(2);
    expect((await call(`${service.api}/stream/${id}`, { method: 'DELETE' })).status).toBe(204);
    await until(
      'every process of the session to be gone',
      () =>
        processesRunning('sleep 3599').length + processesRunning('sleep 3598').length === 0 &&
        processesWith(id).length === 0,
    );
  });

  it('made the data directory readable by the service alone, and swept what stopped displays left', () => {
    expect(statSync(service.dataDir).mode & 0o777).toBe(0o700);
    for (const leftover of Object.values(STALE)) expect(existsSync(leftover), leftover).toBe(false);
  });
});

describe('a display host killed outright', () => {
  it('fails its session, and leaves neither its program, its X server nor their files behind', async () => {
    const cookies = () => readdirSync(tmpdir()).filter((name) => name.startsWith('streamgate-x-'));
    const before = cookies();
    const session = await readySession(service, 'hostile', 'tight');
    const uid = 1_500_000_000 + Number(new URL(session.signaling).port);
    const host = processesWith(session.id).find((pid) =>
      readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--session-id'),
    );
    expect(host).toBeDefined();
    const xvfb = processesRunning('Xvfb', true).filter((pid) => parentOf(pid) === host);
    expect(xvfb).toHaveLength(1);
    process.kill(host!, 'SIGKILL');
    await until(
      'its session to fail',
      async () => (await call(`${service.api}/stream/${session.id}`)).status === 410,
      30_000,
    );
    await until(
      'its program, its X server and their files to be gone',
      () => !alive(xvfb[0]!) && processesOf(uid).length === 0 && cookies().length <= before.length,
      30_000,
    );
  });
});

describe('a memory hog', () => {
  it('fails its own session, in words, and the service goes on', async () => {
    const created = await call(`${service.api}/stream`, {
      method: 'POST',
      body: { id: 'hostile', version: '0.9.0', profile: 'tight' },
    });
    const id = created.body.id as string;
    const failed = await until(
      'the hog to fail its session',
      async () => {
        const res = await call(`${service.api}/stream/${id}`);
        return res.status === 410 ? res : undefined;
      },
      60_000,
    );
    expect(failed.body.detail).toMatch(/ran out of its 256 MB of memory/);
    expect((await call(`${service.url}/healthz`)).status).toBe(200);
  });
});
