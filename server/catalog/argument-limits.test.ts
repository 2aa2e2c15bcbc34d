import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test-support/test-support.ts';
import { ARGUMENT_LIMITS } from './argument-limits.ts';

// This file's ports: 28330-28339 (no session is started: every body here is refused).
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ ports: { first: 28330, last: 28339 } });
});
afterAll(async () => {
  await t.close();
});

/** POSTs the given `arguments` text; with the profile `missing`, an accepted one is a 422 too. */
async function post(argumentsJson: string, profile = 'missing') {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/stream',
    headers: { 'content-type': 'application/json' },
    payload: `{"id":"usd-viewer","profile":"${profile}","arguments":${argumentsJson}}`,
  });
  return { status: res.statusCode, detail: (res.json() as { detail: unknown }).detail };
}

function nested(open: string, close: string, depth: number, inner = '1'): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}

describe('POST /api/stream arguments limits', () => {
  it('answers 422 naming the first level too deep, for objects 10,000 deep', async () => {
    const answer = await post(nested('{"a":', '}', 10_000), 'default');
    expect(answer.status).toBe(422);
    expect(answer.detail).toEqual([
      {
        loc: ['body', 'arguments', ...Array<string>(ARGUMENT_LIMITS.depth).fill('a')],
        msg: 'Value error, arguments may nest at most 8 levels deep',
        type: 'value_error',
      },
    ]);
  });

  it('answers 422 for lists nested as deep as the body limit allows', async () => {
    const answer = await post(`{"x":${nested('[', ']', 30_000)}}`, 'default');
    expect(answer.status).toBe(422);
    expect(answer.detail).toEqual([
      expect.objectContaining({
        loc: ['body', 'arguments', 'x', ...Array<number>(ARGUMENT_LIMITS.depth - 1).fill(0)],
        type: 'value_error',
      }),
    ]);
  });

  it('accepts arguments 8 levels deep and refuses 9', async () => {
    const notFound = [expect.objectContaining({ loc: ['body', 'profile'], type: 'not_found' })];
    expect(await post(nested('{"a":', '}', 8))).toEqual({ status: 422, detail: notFound });
    expect(await post(nested('{"a":', '}', 7, '[1]'))).toEqual({ status: 422, detail: notFound });
    const deeper = await post(nested('{"a":', '}', 8, '[1]'));
    expect(deeper.detail).toEqual([expect.objectContaining({ type: 'value_error' })]);
  });

  it('answers 422 at ["body","arguments"] for too many keys or too many bytes', async () => {
    const keys = (n: number) =>
      JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])));
    const notFound = [expect.objectContaining({ loc: ['body', 'profile'] })];
    expect((await post(keys(ARGUMENT_LIMITS.keys))).detail).toEqual(notFound);
    expect((await post(keys(ARGUMENT_LIMITS.keys + 1), 'default')).detail).toEqual([
      {
        loc: ['body', 'arguments'],
        msg: 'Value error, arguments may hold at most 256 keys in all',
        type: 'value_error',
      },
    ]);
    const big = (bytes: number) => JSON.stringify({ text: 'x'.repeat(bytes - '{"text":""}'.length) });
    expect((await post(big(ARGUMENT_LIMITS.bytes))).detail).toEqual(notFound);
    expect((await post(big(ARGUMENT_LIMITS.bytes + 1), 'default')).detail).toEqual([
      {
        loc: ['body', 'arguments'],
        msg: 'Value error, arguments may take at most 16 KiB as JSON',
        type: 'value_error',
      },
    ]);
    expect(t.manager.counts()).toEqual({ pending: 0, ready: 0, failed: 0, queued: 0, warm: 0 });
  });
});
