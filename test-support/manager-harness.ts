/**
 * Test harness for the manager tests: builds a manager over a temporary data directory and a port
 * range of the calling file, records what it logs, and after each test stops it and kills anything
 * left of the processes the test saw.
 */
import { afterEach } from 'vitest';
import {
  tearDown,
  tempDataDir,
  testManager,
  testOptions,
  waitFor,
  type TestSettings,
} from './session-support.ts';
import type { SessionManager, SessionRecord } from '../server/sessions/types.ts';

export interface ManagerHarness {
  setup(overrides?: Partial<TestSettings>): Promise<SessionManager>;
  /** Remembers the record's pid so that the process is killed after the test, whatever happens. */
  track(record: SessionRecord | undefined): SessionRecord | undefined;
  /** Waits for the session to be ready and returns its record. */
  ready(manager: SessionManager, id: string): Promise<SessionRecord>;
  /** What the manager logged in this test, as "<session id> <message>" lines. */
  logged(): string[];
  dataDir(): string;
  pids: Set<number | undefined>;
}

export function useManagerHarness(first: number, last: number): ManagerHarness {
  let manager: SessionManager | undefined;
  let dataDir: string | undefined;
  let logged: string[] = [];
  const pids = new Set<number | undefined>();
  const log = (fields: Record<string, unknown>, message: string) => {
    logged.push(`${String(fields.sessionId)} ${message}`);
  };
  const logger = { info: log, warn: log, error: log };

  afterEach(async () => {
    await tearDown(manager, pids, dataDir);
    manager = undefined;
    dataDir = undefined;
  });

  const harness: ManagerHarness = {
    async setup(overrides = {}) {
      dataDir = await tempDataDir();
      logged = [];
      manager = testManager({ ...testOptions(dataDir, first, last), ...overrides }, logger);
      await manager.start();
      return manager;
    },
    track(record) {
      pids.add(record?.pid);
      return record;
    },
    async ready(m, id) {
      await waitFor(`session ${id} to be ready`, () => harness.track(m.get(id))?.state === 'ready');
      return m.get(id) as SessionRecord;
    },
    logged: () => logged,
    dataDir: () => dataDir ?? '',
    pids,
  };
  return harness;
}
