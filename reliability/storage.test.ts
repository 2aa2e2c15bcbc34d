/**
 * Storage faults against a real service process: a disk that is "full" (a file size limit on the
 * service, `ulimit -f`, so that every write past 512 bytes fails with EFBIG) and a data directory that
 * turns into a file while the service runs (ENOTDIR; root ignores permissions, so chmod proves nothing).
 * Each time, POST /stream answers 503 with a sentence and the log says why, the session is undone, and
 * GET /cfg and GET /stream are still answered.
 */
import { rename, writeFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { sampleCatalog } from '../e2e/support/catalogs.ts';
import { call } from './support/http.ts';
import { figure } from './support/profile.ts';
import { heldPorts } from './support/ports.ts';
import { removeWorkDir, startService, until, type Service } from './support/service.ts';

const PORTS = { first: 25500, last: 25519 };
/**
 * The sample application, which runs outside the sandbox: on a full disk the service cannot write the sandbox's
 * filter either, and then refuses real programs in words before their state is ever saved.
 */
const CATALOG = sampleCatalog({ width: 320, height: 180, fps: 15 });
const services: Service[] = [];
const range = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => first + i);

afterAll(async () => {
  for (const service of services) {
    await service.stop();
    await removeWorkDir(service.workDir);
  }
});

async function expectRefusedAndServing(service: Service, why: RegExp): Promise<void> {
  const before = (await call(`${service.api}/stream`)).body.count;
  const res = await call(`${service.api}/stream`, {
    method: 'POST',
    body: { id: 'sample', profile: 'small' },
  });
  expect(res.status).toBe(503);
  expect(res.body.detail).toMatch(why);
  expect(String(res.body.detail)).not.toContain(service.workDir);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  // The log is written asynchronously; wait for the line rather than race it.
  await until('the log to say why', () => /could not save the session state/i.test(service.output()));
  expect((await call(`${service.api}/cfg/apps`)).status).toBe(200);
  const list = await call(`${service.api}/stream`);
  expect(list.status).toBe(200);
  // Undone: not listed, nothing started for it.
  expect(list.body.count).toBe(before);
  expect(service.child.exitCode).toBeNull();
}

describe('storage faults', () => {
  it('answers 503 with a sentence when the disk is full, and keeps answering reads', async () => {
    const service = await startService({
      port: 18240,
      sessionPorts: PORTS,
      catalog: CATALOG,
      env: { STREAMGATE_RATE_LIMIT: 'off' },
      // 512-byte blocks: the state of one session does not fit.
      shellPrefix: 'ulimit -f 1',
    });
    services.push(service);
    for (let i = 0; i < 3; i++) await expectRefusedAndServing(service, /cannot save sessions/);
    // Nothing keeps holding a session port: the applications of the undone sessions were stopped.
    await until('the session ports to be free', async () =>
      (await heldPorts(range(PORTS.first, PORTS.first + 9))).length === 0 ? true : undefined,
    );
    figure('POST /stream on a full disk', '503 with a sentence, 3 of 3');
  });

  it('answers 503 with a sentence when its data directory becomes a file', async () => {
    const service = await startService({
      port: 18241,
      sessionPorts: { first: PORTS.first + 10, last: PORTS.last },
      catalog: CATALOG,
      env: { STREAMGATE_RATE_LIMIT: 'off' },
    });
    services.push(service);
    await rename(service.dataDir, `${service.dataDir}.moved`);
    await writeFile(service.dataDir, 'not a directory');
    for (let i = 0; i < 3; i++) await expectRefusedAndServing(service, /cannot save sessions/);
    figure('POST /stream with the data directory replaced by a file', '503 with a sentence, 3 of 3');
  });
});
