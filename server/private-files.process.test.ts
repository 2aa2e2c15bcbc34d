import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logPath } from './runners/local-logs.ts';
import { startTestApp, type TestApp } from '../test-support/test-support.ts';
import { waitFor } from '../test-support/session-support.ts';

// This file's ports: 28360-28369.
let parent: string;
/** Closed at the end, so that a failed check leaves no application behind. */
const apps: TestApp[] = [];
beforeAll(async () => {
  parent = await mkdtemp(path.join(tmpdir(), 'streamgate-modes-'));
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await rm(parent, { recursive: true, force: true });
});

async function modeOf(file: string): Promise<number> {
  return (await stat(file)).mode & 0o777;
}

describe('files under the data directory', () => {
  it('are readable by the service user only: state, lock, logs, and the directories', async () => {
    const dataDir = path.join(parent, 'data');
    const t = await startTestApp({ ports: { first: 28360, last: 28369 }, dataDir });
    apps.push(t);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/stream',
      payload: { id: 'usd-viewer', profile: 'default' },
    });
    const id = (created.json() as { id: string }).id;
    await waitFor('the session to be ready', () => t.manager.get(id)?.state === 'ready');
    const logDir = path.join(dataDir, 'logs');
    await waitFor('the state file', () =>
      stat(path.join(dataDir, 'sessions.json')).then(
        () => true,
        () => false,
      ),
    );
    expect(await modeOf(dataDir)).toBe(0o700);
    expect(await modeOf(logDir)).toBe(0o700);
    expect(await modeOf(logPath(logDir, id))).toBe(0o600);
    for (const name of ['sessions.json', 'sessions.json.bak', 'service.lock']) {
      expect([name, await modeOf(path.join(dataDir, name))]).toEqual([name, 0o600]);
    }
  });

  it('closes a logs directory left open to all by an older version', async () => {
    const dataDir = path.join(parent, 'older');
    await mkdir(path.join(dataDir, 'logs'), { recursive: true });
    await chmod(path.join(dataDir, 'logs'), 0o755);
    await writeFile(path.join(dataDir, 'logs', 'old.log'), 'old output\n');
    apps.push(await startTestApp({ ports: { first: 28360, last: 28369 }, dataDir }));
    expect(await modeOf(path.join(dataDir, 'logs'))).toBe(0o700);
  });
});
