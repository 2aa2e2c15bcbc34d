/**
 * Test fixture: a process that runs a session manager, creates sessions, prints their records as one
 * JSON line once `readyCount` of them are ready, and then idles until it is killed. The recovery tests
 * kill it with SIGKILL, which is the real thing a restart has to survive.
 *
 * argv: <options JSON> <array of stand-in flag arrays, one per session, JSON> <readyCount> [<startedCount>]
 * (startedCount: how many sessions must have a process, ready or not; default 0)
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PersistedSession } from '../server/sessions/saved-session.ts';
import { standInRequest, testManager, type TestSettings } from './session-support.ts';
import type { SessionRecord } from '../server/sessions/types.ts';
import { ServiceSandbox } from '../server/runners/service-sandbox.ts';

const [optionsText, flagsText, readyText] = process.argv.slice(2);
// A sandbox does not travel as JSON: the crashing host runs its stand-ins as the tests of scheduling do.
const options: TestSettings = {
  ...(JSON.parse(optionsText ?? '{}') as Omit<TestSettings, 'sandbox'>),
  sandbox: ServiceSandbox.unsandboxedForTests(),
};
const flags = JSON.parse(flagsText ?? '[]') as string[][];
const readyCount = Number(readyText ?? 0);
const startedCount = Number(process.argv[5] ?? 0);

/** Whether the state file already says what the manager says (saving is asynchronous). */
function onDisk(records: SessionRecord[]): boolean {
  try {
    const file = JSON.parse(readFileSync(path.join(options.dataDir, 'sessions.json'), 'utf8')) as {
      sessions: PersistedSession[];
    };
    const saved = new Map(file.sessions.map((s) => [s.record.id, s.record]));
    return records.every((r) => saved.get(r.id)?.state === r.state && saved.get(r.id)?.pid === r.pid);
  } catch {
    return false;
  }
}

const manager = testManager(options);
await manager.start();
const ids: string[] = [];
for (const sessionFlags of flags) ids.push((await manager.create(standInRequest(sessionFlags))).id);
for (;;) {
  const records = ids.map((id) => manager.get(id)).filter((r): r is SessionRecord => r !== undefined);
  const ready = records.filter((r) => r.state === 'ready').length;
  const started = records.filter((r) => r.pid !== undefined).length;
  if (ready >= readyCount && started >= startedCount && onDisk(records)) {
    process.stdout.write(`${JSON.stringify(records)}\n`);
    break;
  }
  await sleep(50);
}
// Idle until killed; the state file is already on disk.
setInterval(() => {}, 60_000);
