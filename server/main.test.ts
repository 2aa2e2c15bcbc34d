import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../e2e/support/ports.ts';
import { standInCatalog, startTestApp } from '../test-support/test-support.ts';
import { copyStandInTo } from '../test-support/stand-in-bundle.ts';

const root = path.resolve(import.meta.dirname, '..');
const PORTS = { first: 48240, last: 48259 };
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

function service(env: Record<string, string>, ipc = false): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe', ...(ipc ? (['ipc'] as const) : [])],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

async function healthy(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

/** Polls `condition` until it holds (a guard against hanging, not a timing assertion). */
async function until(what: string, condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await condition()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('server/main.ts', () => {
  it('stops at start-up with one message naming the catalog file and line', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'streamgate-main-'));
    dirs.push(dir);
    const catalog = path.join(dir, 'catalog.yaml');
    await writeFile(
      catalog,
      'applications:\n  - id: "bad id"\n    name: X\n    versions: [{version: 1.0.0}]\nprofiles: []\n',
    );
    const { child, output } = service({ PORT: String(await freePort()), STREAMGATE_CATALOG: catalog });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(output()).toContain(`streamgate: ${catalog}:2: "bad id" is not a valid id`);
  });

  it('refuses a non-loopback HOST without tokens', async () => {
    const { child, output } = service({ PORT: String(await freePort()), HOST: '0.0.0.0' });
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(1);
    expect(output()).toMatch(/STREAMGATE_TOKENS is not set/);
  });

  /** A service on the stand-in catalog with one ready session: the service, and its application's /health. */
  async function serviceWithSession(ipc = false) {
    const dir = await mkdtemp(path.join(tmpdir(), 'streamgate-main-'));
    dirs.push(dir);
    const catalog = path.join(dir, 'catalog.yaml');
    await writeFile(catalog, standInCatalog());
    copyStandInTo(dir);
    const port = await freePort();
    const dataDir = path.join(dir, 'state');
    const { child, output } = service(
      {
        PORT: String(port),
        STREAMGATE_CATALOG: catalog,
        STREAMGATE_DATA_DIR: dataDir,
        STREAMGATE_PORT_RANGE: `${PORTS.first}-${PORTS.last}`,
      },
      ipc,
    );
    await until(`the service to answer (${output()})`, () => healthy(`http://127.0.0.1:${port}/healthz`));

    const created = await fetch(`http://127.0.0.1:${port}/api/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'usd-viewer', profile: 'default' }),
    });
    const { id } = (await created.json()) as { id: string };
    let session: { routes?: Record<string, { source_port: number }[]> } = {};
    await until('the session to be ready', async () => {
      const res = await fetch(`http://127.0.0.1:${port}/api/stream/${id}`);
      session = (await res.json()) as typeof session;
      return res.status === 200;
    });
    const signaling = session.routes?.['127.0.0.1']?.[0]?.source_port;
    return { child, dataDir, id, session, appHealth: `http://127.0.0.1:${signaling}/health`, port, output };
  }

  it('stops cleanly, applications included, when the launcher that holds its IPC channel is gone', async () => {
    const { child, appHealth, port, output } = await serviceWithSession(true);
    expect(await healthy(appHealth)).toBe(true);
    // Not a terminal: the banner, then JSON log lines only.
    expect(output()).toContain(`Streamgate is running at http://127.0.0.1:${port}/\n  API       `);
    const logLines = output()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    for (const line of logLines) expect(JSON.parse(line)).toHaveProperty('level');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // What scripts/start.ts's death (even by SIGKILL) looks like from the service: the channel closes.
    child.disconnect();
    expect(await exited).toBe(0);
    expect(await healthy(appHealth)).toBe(false);
  });

  it('adopts a running application after the service is killed with SIGKILL', async () => {
    const { child, dataDir, id, session, appHealth } = await serviceWithSession();

    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    // The application outlives the service: it runs in a process group of its own.
    expect(await healthy(appHealth)).toBe(true);

    const second = await startTestApp({ ports: PORTS, dataDir });
    try {
      const again = await second.app.inject(`/api/stream/${id}`);
      expect(again.statusCode).toBe(200);
      expect(again.json()).toMatchObject({ id, routes: session.routes });
    } finally {
      await second.close(true);
    }
    // A clean stop ends every session, adopted ones included.
    expect(await healthy(appHealth)).toBe(false);
  });
});
