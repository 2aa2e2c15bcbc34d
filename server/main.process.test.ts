/**
 * server/main.ts as a real process, started through the service harness: what it refuses at start-up, and that
 * it stops cleanly or is adopted from where it was killed.
 */
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { standInCatalog, startTestApp } from '../test-support/test-support.ts';
import {
  ProcessStartError,
  startService,
  stopStartedServices,
  type Service,
  type ServiceOptions,
} from '../test-support/service.ts';
import { answers, until } from '../test-support/until.ts';

const PORTS = { first: 28240, last: 28259 };
const services: Service[] = [];

afterEach(async () => {
  await stopStartedServices();
  for (const service of services.splice(0)) await service.close();
});

/** Starts a service that must refuse to start, and gives what it ended with. */
async function refused(options: ServiceOptions): Promise<ProcessStartError> {
  const error = await startService({ ...options, portal: false }).then(
    (service) => (services.push(service), undefined),
    (reason: unknown) => reason,
  );
  if (!(error instanceof ProcessStartError)) throw new Error(`The service started: ${String(error)}`);
  return error;
}

describe('server/main.ts', () => {
  it('stops at start-up with one message naming the catalog file and line', async () => {
    const catalog =
      'applications:\n  - id: "bad id"\n    name: X\n    versions: [{version: 1.0.0}]\nprofiles: []\n';
    const { exitCode, output } = await refused({ catalog });
    expect(exitCode).toBe(1);
    expect(output).toMatch(/streamgate: \/\S+\/catalog\.yaml:2: "bad id" is not a valid id/);
  });

  it('refuses a non-loopback HOST without tokens', async () => {
    const { exitCode, output } = await refused({ env: { HOST: '0.0.0.0' } });
    expect(exitCode).toBe(1);
    expect(output).toMatch(/STREAMGATE_TOKENS is not set/);
  });

  /** A service on the stand-in catalog with one ready session: the service, and its application's /health. */
  async function serviceWithSession() {
    const service = await startService({ catalog: standInCatalog(), sessionPorts: PORTS, portal: false });
    services.push(service);
    const created = await fetch(`${service.api}/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'usd-viewer', profile: 'default' }),
    });
    const { id } = (await created.json()) as { id: string };
    const session = await until('the session to be ready', async () => {
      const res = await fetch(`${service.api}/stream/${id}`);
      const body = (await res.json()) as { routes?: Record<string, { source_port: number }[]> };
      return res.status === 200 && body;
    });
    const signaling = session.routes?.['127.0.0.1']?.[0]?.source_port;
    return { service, id, session, appHealth: `http://127.0.0.1:${signaling}/health` };
  }

  it('stops cleanly, applications included, when the launcher that holds its IPC channel is gone', async () => {
    // The harness holds the channel, as scripts/start.ts does.
    const { service, appHealth } = await serviceWithSession();
    expect(await answers(appHealth)).toBe(true);
    // Not a terminal: the banner, then JSON log lines only.
    expect(service.output()).toContain(`Streamgate is running at ${service.url}/\n  API       `);
    const logLines = service
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    for (const line of logLines) expect(JSON.parse(line)).toHaveProperty('level');
    const exited = once(service.child, 'exit');
    // What scripts/start.ts's death (even by SIGKILL) looks like from the service: the channel closes.
    service.child.disconnect();
    expect((await exited)[0]).toBe(0);
    expect(await answers(appHealth)).toBe(false);
  });

  it('adopts a running application after the service is killed with SIGKILL', async () => {
    const { service, id, session, appHealth } = await serviceWithSession();

    await service.kill9();
    // The application outlives the service: it runs in a process group of its own.
    expect(await answers(appHealth)).toBe(true);

    const second = await startTestApp({ ports: PORTS, dataDir: service.dataDir });
    try {
      const again = await second.app.inject(`/api/stream/${id}`);
      expect(again.statusCode).toBe(200);
      expect(again.json()).toMatchObject({ id, routes: session.routes });
    } finally {
      await second.close(true);
    }
    // A clean stop ends every session, adopted ones included.
    expect(await answers(appHealth)).toBe(false);
  });
});
