/**
 * Requests that no route takes: a known address with another method (405 with Allow), and requests that
 * Node's parser refuses for their size (414, 431), each with the contract's `{"detail": "..."}`.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test-support/test-support.ts';

// This file's ports: 28410-28419.
let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await startTestApp({ ports: { first: 28410, last: 28419 } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await t.close();
});

/** Sends raw bytes and reads the whole answer. */
function raw(text: string): Promise<string> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.end(text));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('close', () => resolve(answer));
    socket.on('error', () => resolve(answer));
  });
}

function bodyOf(answer: string): unknown {
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
}

describe('requests no route takes', () => {
  it('answers 405 with Allow for a known address asked with another method, 404 for an unknown one', async () => {
    const put = await t.app.inject({ method: 'PUT', url: '/api/cfg/apps' });
    expect(put.statusCode).toBe(405);
    expect(put.headers.allow).toBe('GET, HEAD');
    expect(typeof put.json().detail).toBe('string');
    const patch = await t.app.inject({ method: 'PATCH', url: '/api/stream/not-even-an-id' });
    expect([patch.statusCode, patch.headers.allow]).toEqual([405, 'DELETE, GET, HEAD']);
    expect((await t.app.inject({ method: 'PUT', url: '/api/nothing-here' })).statusCode).toBe(404);
  });

  it('answers 414 for an address too long and 431 for headers too large, with a sentence', async () => {
    const longUrl = await raw(`GET /api/cfg/apps/${'a'.repeat(100_000)} HTTP/1.1\r\nHost: a\r\n\r\n`);
    expect(longUrl).toMatch(/^HTTP\/1\.1 414 /);
    expect(bodyOf(longUrl)).toEqual({ detail: expect.stringContaining('address') });
    const bigHeader = await raw(
      `GET /api/cfg/apps HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`,
    );
    expect(bigHeader).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(bigHeader)).toEqual({ detail: expect.stringContaining('headers') });
  });
});
