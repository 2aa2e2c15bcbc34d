/**
 * Figures of the session machinery as a user's program meets it, over the API of the real service
 * (`server/main.ts` started as a process, bench/service.ts): `npm run bench -- sessions`.
 *   POST /stream until GET /stream/{id} says ready, with a stand-in application (a Node one-liner that
 *     answers its health check, started in the session's sandbox): the service's own part of a launch;
 *   DELETE /stream/{id} until its answer: the application stopped, its process group gone;
 *   32 POSTs at once while the only GPU is held, until the last answer: each session is queued and on disk
 *     before its answer, so this is what sharing the durable writes gives.
 * The port pool and the state store's single saves, measured here from the service's modules before, are parts of
 * these figures and of none a person feels alone: they are no longer measured apart.
 * BENCH_PORT=<n> moves the bench's ports (default 18400).
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { standInCatalog, startService, type ServiceProcess } from './service.ts';
import { median, quantile } from './stats.ts';

const PORT = Number(process.env.BENCH_PORT ?? 18400);
const ROUNDS = 8;
const BURSTS = 20;

const CATALOG = standInCatalog();

function summary(name: string, samples: number[]): void {
  const figure = (q: number) => `${quantile(samples, q).toFixed(2)} ms`;
  console.log(
    `${name.padEnd(48)} n=${String(samples.length).padStart(3)}  median ${median(samples).toFixed(2)} ms  ` +
      `p90 ${figure(0.9)}  max ${figure(1)}`,
  );
}

async function launch(service: ServiceProcess): Promise<string> {
  const answer = await fetch(`${service.base}/api/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'stand-in', profile: 'default' }),
  });
  if (answer.status >= 300) throw new Error(`POST /stream answered ${answer.status}: ${await answer.text()}`);
  return ((await answer.json()) as { id: string }).id;
}

async function end(service: ServiceProcess, id: string): Promise<void> {
  const answer = await fetch(`${service.base}/api/stream/${id}`, { method: 'DELETE' });
  if (answer.status !== 204) throw new Error(`DELETE answered ${answer.status}: ${await answer.text()}`);
}

/** Polls every 20 ms, as the portal's quickest poll would not: the figure is the service's, not the poll's. */
async function untilReady(service: ServiceProcess, id: string): Promise<void> {
  for (let polls = 0; polls < 1500; polls++) {
    const answer = await fetch(`${service.base}/api/stream/${id}`);
    if (answer.status === 200) return;
    if (answer.status !== 202) throw new Error(`GET /stream/${id} answered ${answer.status}`);
    await sleep(20);
  }
  throw new Error(`Session ${id} was not ready in 30 s`);
}

async function lifecycle(): Promise<void> {
  const service = await startService({ port: PORT, catalog: CATALOG, env: { STREAMGATE_CAPACITY: '2' } });
  const toReady: number[] = [];
  const toGone: number[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      let started = performance.now();
      const id = await launch(service);
      await untilReady(service, id);
      toReady.push(performance.now() - started);
      started = performance.now();
      await end(service, id);
      toGone.push(performance.now() - started);
    }
  } finally {
    await service.stop();
  }
  summary('POST to ready (stand-in, sandboxed, 20 ms polls)', toReady);
  summary('DELETE until answered (process group gone)', toGone);
}

async function bursts(): Promise<void> {
  const env = {
    STREAMGATE_CAPACITY: '1',
    STREAMGATE_QUEUE_LIMIT: '1000',
    STREAMGATE_RATE_LIMIT: 'off',
    STREAMGATE_USER_LIMIT: 'off',
  };
  const service = await startService({ port: PORT + 1, catalog: CATALOG, env });
  const samples: number[] = [];
  try {
    await launch(service);
    for (let round = 0; round < BURSTS; round++) {
      const started = performance.now();
      const made = await Promise.all(Array.from({ length: 32 }, () => launch(service)));
      samples.push(performance.now() - started);
      for (const id of made) await end(service, id);
    }
  } finally {
    await service.stop();
  }
  summary('32 POSTs at once, each queued and on disk', samples);
}

await lifecycle();
await bursts();
