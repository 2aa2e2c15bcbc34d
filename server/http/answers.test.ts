import { setImmediate as nextTurn } from 'node:timers/promises';
import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Answers, type Answer } from './answers.ts';

async function appWithAnswers() {
  const app = Fastify();
  const log = { error: vi.fn() };
  const answers = new Answers(app, log as never);
  app.get('/ok', async () => ({ ok: true }));
  app.get('/teapot', async (_request, reply) => reply.code(418).send({}));
  await app.ready();
  return { app, answers, log };
}

const summary = (batch: readonly Answer[]) => batch.map((a) => `${a.request.url} ${a.statusCode}`);

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
});

describe('Answers', () => {
  it('hands the answers of one turn to every consumer as one batch, after that turn', async () => {
    const { app, answers } = await appWithAnswers();
    close = () => app.close();
    const first: string[][] = [];
    const second: string[][] = [];
    answers.consume((batch) => first.push(summary(batch)));
    answers.consume((batch) => second.push(summary(batch)));
    await Promise.all([app.inject('/ok'), app.inject('/teapot'), app.inject('/ok')]);
    expect(first).toEqual([]);
    await nextTurn();
    // One batch of the three, in the order they were answered (which is not that of the calls).
    expect(first).toHaveLength(1);
    expect([...(first[0] ?? [])].sort()).toEqual(['/ok 200', '/ok 200', '/teapot 418']);
    expect(second).toEqual(first);
    await app.inject('/teapot');
    await nextTurn();
    expect(first.slice(1)).toEqual([['/teapot 418']]);
  });

  it('gives each answer its time to the end of the answer', async () => {
    const { app, answers } = await appWithAnswers();
    close = () => app.close();
    const times: number[] = [];
    answers.consume((batch) => times.push(...batch.map((a) => a.elapsedMs)));
    await app.inject('/ok');
    await nextTurn();
    expect(times).toHaveLength(1);
    expect(times[0]).toBeGreaterThan(0);
    expect(times[0]).toBeLessThan(1_000);
  });

  it('flush() hands the pending answers at once, and only once', async () => {
    const { app, answers } = await appWithAnswers();
    close = () => app.close();
    const batches: string[][] = [];
    answers.consume((batch) => batches.push(summary(batch)));
    await app.inject('/ok');
    answers.flush();
    expect(batches).toEqual([['/ok 200']]);
    await nextTurn();
    expect(batches).toEqual([['/ok 200']]);
  });

  it('logs a consumer that throws, and the others still get the batch', async () => {
    const { app, answers, log } = await appWithAnswers();
    close = () => app.close();
    const batches: string[][] = [];
    answers.consume(() => {
      throw new Error('a broken consumer');
    });
    answers.consume((batch) => batches.push(summary(batch)));
    await app.inject('/ok');
    await nextTurn();
    expect(batches).toEqual([['/ok 200']]);
    expect(log.error).toHaveBeenCalledTimes(1);
    expect(String((log.error.mock.calls[0]?.[0] as { err: Error }).err)).toContain('a broken consumer');
  });
});
