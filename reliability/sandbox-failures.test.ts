/**
 * How a sandboxed session fails (CONTRACT section 17): its display host killed outright leaves neither its program,
 * its X server nor their files behind; a memory hog fails its own session in words while the service stays up.
 */
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/http.ts';
import { processesRunning, startHostileService, uidOf } from './support/sandbox.ts';
import { readySession } from './support/session.ts';
import {
  alive,
  displayHostOf,
  removeWorkDir,
  stopStartedServices,
  until,
  type Service,
} from './support/service.ts';

const SERVICE_PORT = 18271;
const PORTS = { first: 25780, last: 25799 };

let service: Service;

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
  service = await startHostileService(SERVICE_PORT, PORTS);
}, 120_000);

afterAll(async () => {
  await stopStartedServices();
  if (service) await removeWorkDir(service.workDir);
});

describe('a display host killed outright', () => {
  it('fails its session, and leaves neither its program, its X server nor their files behind', async () => {
    const cookies = () => readdirSync(tmpdir()).filter((name) => name.startsWith('streamgate-x-'));
    const before = cookies();
    const session = await readySession(service, 'hostile', 'tight');
    const uid = 1_500_000_000 + Number(new URL(session.signaling).port);
    const host = displayHostOf(session.id);
    expect(host).toBeDefined();
    // Its X server runs in a sandbox of its own, as the session's user.
    const xvfb = processesRunning('Xvfb', true).filter((pid) => uidOf(pid) === uid);
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
