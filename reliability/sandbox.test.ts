/**
 * Each session in its own sandbox (CONTRACT section 17, issue 22): a hostile program, run as a session of a real
 * service, tries every escape an attacker with an ordinary account used against the Terminal, and each is
 * refused; when its session ends, nothing it started (a setsid child, a double fork) is left. How a session
 * fails (its display host killed, a memory hog) is in sandbox-failures.test.ts.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descendantsOf } from '../test-support/processes.ts';
import { call } from './support/http.ts';
import { MARK, processesRunning, startHostileService, uidOf } from './support/sandbox.ts';
import { readySession } from './support/session.ts';
import {
  processesWith,
  removeWorkDir,
  root,
  stopStartedServices,
  until,
  type Service,
} from './support/service.ts';

const SERVICE_PORT = 18270;
const PORTS = { first: 25760, last: 25779 };
/** Leftovers of a display host killed outright, on display :987 (pid 2147483646 never runs). */
const STALE = {
  cookies: path.join(tmpdir(), `streamgate-x-stale${process.pid}`),
  lock: '/tmp/.X987-lock',
  socket: '/tmp/.X11-unix/X987',
};

let service: Service;
let log = '';
let hostile = '';

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

beforeAll(async () => {
  // What a host killed with its service leaves (a cookie folder, a display's lock and socket): the start sweeps it
  // (and closes the data directory an older version left open to all, which startHostileService makes).
  mkdirSync(STALE.cookies);
  // Xvfb makes the sockets' folder, sticky and open to all, on a machine's first display.
  if (!existsSync('/tmp/.X11-unix')) {
    mkdirSync('/tmp/.X11-unix');
    chmodSync('/tmp/.X11-unix', 0o1777);
  }
  writeFileSync(STALE.lock, '2147483646\n');
  writeFileSync(STALE.socket, '');
  service = await startHostileService(SERVICE_PORT, PORTS);
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
    // What names the session (the display host, in its environment) and everything below it: its X server, the
    // program and its children, its sound, and its encoder while it runs.
    const named = processesWith(id);
    expect(named.length).toBeGreaterThanOrEqual(1);
    const pids = [...new Set(named.flatMap((pid) => [pid, ...descendantsOf(pid)]))];
    expect(pids.length).toBeGreaterThanOrEqual(3);
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
