/**
 * The display host leaves nothing behind: after a DELETE, after a SIGKILL of the service followed by a
 * restart (which adopts the running program) and a clean stop, and after Ctrl-C (SIGINT) of the service,
 * no process of the session, no X socket or lock file and no session port is left.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { canBind } from '../server/runners/port-pool.ts';
import { call } from './support/http.ts';
import { figure } from './support/profile.ts';
import { processesWith, until } from './support/service.ts';
import { TERMINAL_CATALOG, useSuiteService } from './support/suite-service.ts';

const suite = useSuiteService({
  port: 18250,
  sessionPorts: { first: 25700, last: 25719 },
  catalog: TERMINAL_CATALOG,
  env: { STREAMGATE_RATE_LIMIT: 'off' },
});

/** X sockets, lock files and the hosts' shared-memory files (framebuffers, capture segments) present now. */
function xFiles(): string[] {
  const sockets = readdirSync('/tmp/.X11-unix', { withFileTypes: true }).map((e) => `socket ${e.name}`);
  const locks = readdirSync('/tmp').filter((name) => /^\.X\d+-lock$/.test(name));
  // A sandboxed X server's socket, cookie and framebuffer folders (its lock is in its own /tmp).
  const own = readdirSync(tmpdir()).filter((name) => name.startsWith('streamgate-x-'));
  const shared = readdirSync('/dev/shm').filter((name) => name.startsWith('streamgate-'));
  return [...sockets, ...locks, ...own, ...shared].sort();
}

/** Every live process in process group `pgid` (the host's group holds Xvfb, ffmpeg and the program). */
function groupMembers(pgid: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const fields = readFileSync(`/proc/${name}/stat`, 'utf8')
        .replace(/^.*\)\s+/, '')
        .split(' ');
      if (fields[0] !== 'Z' && Number(fields[2]) === pgid) found.push(Number(name));
    } catch {
      // gone while we looked
    }
  }
  return found;
}

/**
 * The session's display host: of the processes that name the session (the encoder names it too, in its still's
 * path), the one that leads its own process group. Process ids wrap, so the host need not come first.
 */
function hostOf(id: string): number | undefined {
  return processesWith(id).find((pid) => groupMembers(pid).includes(pid));
}

/** A ready terminal session of the service started last: its id, its host's pid (its process group), its ports. */
async function terminal() {
  const id = await suite.create('terminal', 'small');
  const ready = await suite.ready(id);
  const routes = Object.values(ready.body.routes as Record<string, { source_port: number }[]>).flat();
  const host = hostOf(id);
  if (host === undefined) throw new Error('no display host process');
  const members = groupMembers(host);
  // The host, Xvfb, the encoder and the program at least.
  expect(members.length).toBeGreaterThanOrEqual(4);
  return { id, host, ports: routes.map((r) => r.source_port) };
}

async function expectNothingLeft(session: { id: string; host: number; ports: number[] }, before: string[]) {
  await until('every process of the session to exit', () => groupMembers(session.host).length === 0);
  expect(processesWith(session.id)).toEqual([]);
  await until('the X socket and lock file to go', () => xFiles().join() === before.join());
  const [signaling, media] = session.ports as [number, number];
  expect(await canBind(signaling, 'tcp')).toBe(true);
  expect(await canBind(media, 'udp')).toBe(true);
}

describe('the display host on every way out', () => {
  it('leaves nothing after a DELETE', async () => {
    const before = xFiles();
    const s = await suite.start();
    const session = await terminal();
    expect(xFiles().length).toBeGreaterThan(before.length);
    expect((await call(`${s.api}/stream/${session.id}`, { method: 'DELETE' })).status).toBe(204);
    await expectNothingLeft(session, before);
    figure('display host ways out without leftovers: DELETE', 1);
  });

  it('is adopted across a SIGKILL of the service, and leaves nothing after the clean stop', async () => {
    const before = xFiles();
    const session = await terminal();
    await suite.service?.kill9();
    expect(groupMembers(session.host).length).toBeGreaterThanOrEqual(4);
    const s = await suite.start();
    expect((await call(`${s.api}/stream/${session.id}`)).status).toBe(200);
    await s.stop();
    await expectNothingLeft(session, before);
    figure('display host ways out without leftovers: service SIGKILL, restart, stop', 1);
  });

  it('leaves nothing after Ctrl-C (SIGINT) of the service', async () => {
    const before = xFiles();
    const s = await suite.start();
    const session = await terminal();
    s.child.kill('SIGINT');
    await until('the service to exit', () => s.child.exitCode !== null || s.child.signalCode !== null);
    await expectNothingLeft(session, before);
    figure('display host ways out without leftovers: SIGINT', 1);
  });
});
