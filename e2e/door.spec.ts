/**
 * One door (CONTRACT §21): a browser on a network of its own (test-support/client-network.ts) that reaches the
 * service's HTTP port and its TURN port and nothing else: not the sessions' ports on 127.0.0.1, not the Slurm test
 * cluster's nodes. Through the portal, as a person would: a local session plays through the relay over UDP, and
 * over TCP once all UDP is dropped; a session on a Slurm node does both too; with UDP and the TURN port's TCP
 * dropped, the viewer does not play, points to the connection check, and the check names the blocked step with
 * the TURN port. Every frame checked is a real frame of the sample application, read back with its marks.
 */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { startClientNetwork, type ClientNetwork } from '../test-support/client-network';
import type { Service } from '../test-support/service';
import { startTestCluster, type TestCluster } from '../test-support/slurm-cluster';
import { sampleCatalog } from './support/catalogs';
import { chromiumLaunchOptions } from './support/chromium';
import { startE2eService } from './support/stack';
import { expectPlaying } from './support/video';
import { marksScript } from './support/whep-test-client';

/** A namespace name and subnet no other test uses (the Slurm test cluster lives on 10.77.0.0/24). */
const NETWORK = { name: 'sgdoor', subnet: '10.92.0' };
/** The relays' ports: clear of the session port ranges of the tests (27000-28999) and of coturn's default. */
const RELAY_PORTS = { local: '29700-29749', slurm: '29750-29799' };

const catalog = sampleCatalog({ width: 640, height: 360, fps: 30 });

let net: ClientNetwork;
let browser: Browser;

test.beforeAll(async () => {
  net = await startClientNetwork(NETWORK);
  browser = await chromium.launch({ ...chromiumLaunchOptions, executablePath: net.chromium });
});

test.afterAll(async () => {
  try {
    await browser?.close();
  } finally {
    await net?.stop();
  }
});

/** Whether `port` can be bound on `host` now, over `kind`. */
function canBind(kind: 'tcp' | 'udp', host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (kind === 'tcp') {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, host, () => server.close(() => resolve(true)));
      return;
    }
    const socket = createSocket('udp4');
    socket.once('error', () => {
      socket.close();
      resolve(false);
    });
    socket.bind(port, host, () => socket.close(() => resolve(true)));
  });
}

/** A port of `first`..`last` free on `host` for UDP, and for TCP too where `tcp`. */
async function freeOn(host: string, first: number, last: number, tcp: boolean): Promise<number> {
  const span = last - first + 1;
  const start = process.pid % span;
  for (let i = 0; i < span; i += 1) {
    const port = first + ((start + i) % span);
    if ((await canBind('udp', host, port)) && (!tcp || (await canBind('tcp', host, port)))) return port;
  }
  throw new Error(`No free port in ${first}-${last} on ${host}`);
}

interface Door {
  service: Service;
  turnPort: number;
}

/**
 * The service on the client network's host end, with its own embedded coturn (a TURN port free for UDP and TCP,
 * the relay range given) and its own media door; sessions bind 127.0.0.1, out of the namespace's reach.
 */
async function startDoorService(relayPorts: string, env: Record<string, string> = {}): Promise<Door> {
  const turnPort = await freeOn(net.hostAddress, 29600, 29649, true);
  const mediaPort = await freeOn('127.0.0.2', 29650, 29699, false);
  const service = await startE2eService(
    {
      catalog,
      env: {
        STREAMGATE_ALLOW_ANONYMOUS: '1',
        STREAMGATE_TURN_PORT: String(turnPort),
        STREAMGATE_TURN_RELAY_PORTS: relayPorts,
        STREAMGATE_DOOR_MEDIA: `127.0.0.2:${mediaPort}`,
        ...env,
      },
    },
    { host: net.hostAddress },
  );
  return { service, turnPort };
}

/** A fresh browser context in the namespace, with the sample application's marks in every page. */
async function newViewer(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  await context.addInitScript(marksScript());
  return { context, page: await context.newPage() };
}

/** Launches `sample` on `small` through the API (as the portal does) and returns the session's id. */
async function launch(request: APIRequestContext, service: Service): Promise<string> {
  const res = await request.post(`${service.api}/stream`, { data: { id: 'sample', profile: 'small' } });
  expect([200, 202]).toContain(res.status());
  return ((await res.json()) as { id: string }).id;
}

/** The host a ready session's routes name, once it is ready. */
async function readyHost(request: APIRequestContext, service: Service, id: string): Promise<string> {
  let routes: Record<string, unknown> = {};
  await expect
    .poll(
      async () => {
        const body = (await (await request.get(`${service.api}/stream/${id}`)).json()) as {
          status?: { condition?: string };
          routes?: Record<string, unknown>;
        };
        routes = body.routes ?? {};
        return body.status?.condition;
      },
      { timeout: 90_000 },
    )
    .toBe('ready');
  return Object.keys(routes)[0] ?? '';
}

/** The viewer plays real moving frames, and its statistics name `path`. */
async function expectPlayingThrough(page: Page, path: string): Promise<void> {
  await expectPlaying(page);
  await page.keyboard.press('Control+Shift+S');
  const stats = page.getByRole('region', { name: 'Stream statistics' });
  await expect(stats).toBeVisible();
  await expect(stats.locator('[data-stat="Path"]')).toHaveText(path);
}

/** Ends the sessions a test made (the service would at its stop, but a test leaves nothing behind). */
async function endAll(service: Service | undefined, ids: string[]) {
  for (const id of ids.splice(0)) {
    if (service) await fetch(`${service.api}/stream/${id}`, { method: 'DELETE' }).catch(() => undefined);
  }
}

test.describe('a session on this machine', () => {
  let door: Door | undefined;
  const sessions: string[] = [];

  test.beforeAll(async () => {
    door = await startDoorService(RELAY_PORTS.local);
  });

  test.afterEach(async () => {
    await endAll(door?.service, sessions);
    await net.allowAll();
  });

  test.afterAll(async () => {
    await door?.service.close();
  });

  test('plays through the door over the relay by UDP', async () => {
    test.setTimeout(90_000);
    const { service } = door as Door;
    const { context, page } = await newViewer();
    try {
      await page.goto(`${service.url}/launch?app=sample&profile=small`);
      await page.getByRole('button', { name: 'Review' }).click();
      await page.getByRole('button', { name: 'Launch' }).click();
      await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 30_000 });
      sessions.push(new URL(page.url()).pathname.split('/').at(-1) ?? '');
      await expectPlayingThrough(page, 'relay UDP');
    } finally {
      await context.close();
    }
  });

  test('plays over the relay by TCP when all UDP is dropped', async ({ request }) => {
    test.setTimeout(90_000);
    const { service } = door as Door;
    await net.dropUdp();
    const id = await launch(request, service);
    sessions.push(id);
    expect(await readyHost(request, service, id)).toBe('127.0.0.1');
    const { context, page } = await newViewer();
    try {
      await page.goto(`${service.url}/sessions/${id}`);
      await expectPlayingThrough(page, 'relay TCP');
    } finally {
      await context.close();
    }
  });

  test('a watch-only link plays for a stranger through the door, its relays learnt from the answer', async ({
    request,
  }) => {
    test.setTimeout(90_000);
    const { service } = door as Door;
    const id = await launch(request, service);
    sessions.push(id);
    await readyHost(request, service, id);
    const owner = await newViewer();
    const stranger = await newViewer();
    try {
      await owner.page.goto(`${service.url}/sessions/${id}`);
      await expectPlaying(owner.page);
      await owner.page.getByRole('button', { name: 'Share a watch-only link' }).click();
      const link = await owner.page.getByLabel('Watch-only link', { exact: true }).inputValue();
      // A watch link has no ticket reply: the first answer's Link headers bring the relays, and it connects
      // again with them, over TCP here since UDP is dropped from now on.
      await net.dropUdp();
      await stranger.page.goto(link);
      await expectPlayingThrough(stranger.page, 'relay TCP');
    } finally {
      await stranger.context.close();
      await owner.context.close();
    }
  });

  test('with UDP and the TURN port blocked, the viewer points to the check, which names the blocked port', async ({
    request,
  }) => {
    test.setTimeout(120_000);
    const { service, turnPort } = door as Door;
    await net.dropUdp();
    await net.dropTcpPort(turnPort);
    const id = await launch(request, service);
    sessions.push(id);
    await readyHost(request, service, id);
    const { context, page } = await newViewer();
    try {
      await page.goto(`${service.url}/sessions/${id}`);
      const check = page.getByRole('link', { name: 'Check the connection' });
      await expect(check).toBeVisible({ timeout: 30_000 });
      await expect(page.getByTestId('player-state')).not.toHaveText('Playing');
      await expect(check).toHaveAttribute('href', /\/check$/);
      await check.click();
      await page.waitForURL(/\/check$/);
      await expect(page.getByRole('heading', { name: 'Connection check' })).toBeVisible();
      await expect(page.getByRole('alert').filter({ hasText: String(turnPort) })).toBeVisible({
        timeout: 60_000,
      });
    } finally {
      await context.close();
    }
  });
});

test.describe('a session on a Slurm node', () => {
  let cluster: TestCluster | undefined;
  let door: Door | undefined;
  const sessions: string[] = [];

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    cluster = await startTestCluster();
    door = await startDoorService(RELAY_PORTS.slurm, { ...cluster.env, STREAMGATE_RUNNER: 'slurm' });
  });

  test.afterAll(async () => {
    test.setTimeout(120_000);
    try {
      await endAll(door?.service, sessions);
      await door?.service.close();
    } finally {
      await net.allowAll();
      await cluster?.stop();
    }
  });

  test('plays from the namespace over the relay by UDP, and by TCP when UDP is dropped', async ({
    request,
  }) => {
    test.setTimeout(180_000);
    const { service } = door as Door;
    const id = await launch(request, service);
    sessions.push(id);
    const node = await readyHost(request, service, id);
    expect((cluster as TestCluster).nodes.map((n) => n.addr)).toContain(node);
    // The node is out of the browser's reach: only the service's address is.
    await expect(net.exec('ip', ['route', 'get', node])).rejects.toThrow(/unreachable/i);

    const first = await newViewer();
    try {
      await first.page.goto(`${service.url}/sessions/${id}`);
      await expectPlayingThrough(first.page, 'relay UDP');
    } finally {
      await first.context.close();
    }

    await net.dropUdp();
    const second = await newViewer();
    try {
      await second.page.goto(`${service.url}/sessions/${id}`);
      await expectPlayingThrough(second.page, 'relay TCP');
    } finally {
      await second.context.close();
    }
  });
});
