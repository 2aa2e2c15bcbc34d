/**
 * Figures of the session machinery on this machine (run: `npx tsx test-support/bench-sessions.ts`):
 * time from create() to ready and from end() to gone with the stand-in application, one port pair
 * allocation (two bind tests), one durable save with 100 sessions in the state (a journal line of one
 * changed session, or of the whole state, and the state folded into the state file and its copy), and
 * how long 32 concurrent create() calls take to be answered, each only once its session is on disk
 * (they share writes).
 * The stand-in's own start-up (a Node process loading TypeScript) dominates the first figure.
 */
import { performance } from 'node:perf_hooks';
import { createSessionManager } from '../server/sessions/manager.ts';
import { PortPool } from '../server/sessions/port-pool.ts';
import { StateStore } from '../server/sessions/state-store.ts';
import { removeDir, standInRequest, tempDataDir, testOptions, waitFor } from './session-support.ts';
import type { SessionRequest } from '../server/sessions/types.ts';

// Ports 48150-48199 are this script's (the session tests use 48000-48149).
const FIRST = 48150;
const LAST = 48199;
const ROUNDS = 8;

function summary(name: string, samples: number[], unit = 'ms'): void {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  console.log(
    `${name.padEnd(44)} n=${String(samples.length).padStart(4)}  median ${at(0.5).toFixed(2)} ${unit}  p90 ${at(0.9).toFixed(2)} ${unit}  max ${sorted.at(-1)?.toFixed(2)} ${unit}`,
  );
}

async function lifecycle(): Promise<void> {
  const dataDir = await tempDataDir();
  const manager = createSessionManager({ ...testOptions(dataDir, FIRST, LAST), readyPollMs: 20 });
  await manager.start();
  const toReady: number[] = [];
  const toGone: number[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      let started = performance.now();
      const { id } = await manager.create(standInRequest());
      await waitFor('ready', () => manager.get(id)?.state === 'ready');
      toReady.push(performance.now() - started);
      started = performance.now();
      await manager.end(id);
      toGone.push(performance.now() - started);
    }
  } finally {
    await manager.stop();
    await removeDir(dataDir);
  }
  summary('create() to ready (stand-in, 20 ms probes)', toReady);
  summary('end() until the process group is gone', toGone);
}

async function ports(): Promise<void> {
  const pool = new PortPool({ first: FIRST, last: LAST });
  const samples: number[] = [];
  for (let i = 0; i < 200; i++) {
    const started = performance.now();
    const pair = await pool.allocate();
    samples.push(performance.now() - started);
    pool.release(pair);
  }
  summary('port pair allocation (TCP + UDP bind test)', samples);
}

async function saves(): Promise<void> {
  const dir = await tempDataDir();
  const request = standInRequest();
  type Saved = { seq: number; request: SessionRequest; record: { id: string } };
  const sessions = new Map<string, Saved>();
  for (let seq = 0; seq < 100; seq++)
    sessions.set(String(seq), { seq, request, record: { id: String(seq) } });
  const store = new StateStore<Saved>(dir, { items: () => sessions, key: (session) => session.record.id });
  const whole: number[] = [];
  const changes: number[] = [];
  const folded: number[] = [];
  try {
    for (let i = 0; i < 50; i++) {
      let started = performance.now();
      await store.saveAll();
      whole.push(performance.now() - started);
      started = performance.now();
      await store.save(String(i));
      changes.push(performance.now() - started);
      started = performance.now();
      await store.flush();
      folded.push(performance.now() - started);
    }
  } finally {
    await store.flush();
    await removeDir(dir);
  }
  summary('durable save, one change among 100 sessions', changes);
  summary('durable save, whole state of 100 sessions', whole);
  summary('  then folded into the state file and its copy', folded);
}

async function creates(): Promise<void> {
  const dataDir = await tempDataDir();
  const options = { ...testOptions(dataDir, FIRST, LAST), capacity: 1, queueLimit: 1_000 };
  const manager = createSessionManager(options);
  await manager.start();
  const samples: number[] = [];
  try {
    // The one GPU is held by a process that never gets ready, so every later session queues.
    const holder = standInRequest();
    holder.launch = { command: ['sleep', '60'] };
    await manager.create(holder);
    for (let round = 0; round < 20; round++) {
      const started = performance.now();
      const made = await Promise.all(Array.from({ length: 32 }, () => manager.create(standInRequest())));
      samples.push(performance.now() - started);
      await Promise.all(made.map((record) => manager.end(record.id)));
    }
  } finally {
    await manager.stop();
    await removeDir(dataDir);
  }
  summary('32 concurrent create(), each on disk (queued)', samples);
}

await ports();
await saves();
await creates();
await lifecycle();
