/**
 * The whole request's deadline (body-deadline.ts), on fake time against a real socket: a body that trickles is
 * cut off with the contract's 408, a streamed upload is not, and a body that arrives leaves no timer behind.
 */
import { connect, type Socket } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bodyDeadline } from './body-deadline.ts';
import { BODY_LIMIT, errorHandler } from './error-handler.ts';

const DEADLINE_MS = 30_000;

let app: FastifyInstance;
let port: number;
/** Resolves once the hook has seen the next request. */
let armed: Promise<void>;
let arm: () => void;

beforeEach(async () => {
  armed = new Promise((resolve) => (arm = resolve));
  // The service's own limit: routes that take more stream their bodies.
  app = Fastify({ bodyLimit: BODY_LIMIT });
  app.setErrorHandler(errorHandler);
  app.addHook('onRequest', bodyDeadline(DEADLINE_MS));
  app.addHook('onRequest', (_request, _reply, done) => {
    arm();
    done();
  });
  app.post('/json', async (request) => ({ got: request.body }));
  await app.register(async (streamed) => {
    streamed.removeAllContentTypeParsers();
    streamed.addContentTypeParser('*', (_request, _payload, done) => done(null));
    streamed.put('/upload', { bodyLimit: 100 * BODY_LIMIT }, async (request) => {
      let bytes = 0;
      for await (const chunk of request.raw) bytes += (chunk as Buffer).length;
      return { bytes };
    });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
  // Only the hook's timers: sockets and Fastify keep Node's own.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(async () => {
  vi.useRealTimers();
  await app.close();
});

/** A raw connection that collects what the service answers and says when it closes. */
function open(head: string) {
  const socket: Socket = connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(text)));
  socket.on('error', () => undefined);
  socket.write(head);
  return { socket, closed, text: () => text };
}

describe('bodyDeadline', () => {
  it('answers 408 and closes the connection of a body that has not arrived in time', async () => {
    const client = open(
      'POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"a"',
    );
    await armed;
    vi.advanceTimersByTime(DEADLINE_MS - 1);
    expect(client.text()).toBe('');
    vi.advanceTimersByTime(1);
    const answer = await client.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(answer).toContain('{"detail":"The request took too long to arrive; send it again at once."}');
  });

  it('lets a streamed upload take longer, and a body that arrives in time leaves no timer', async () => {
    const upload = open(
      'PUT /upload HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 6\r\n\r\nabc',
    );
    await armed;
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10 * DEADLINE_MS);
    upload.socket.write('def');
    expect(await upload.closed).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\{"bytes":6\}$/);

    armed = new Promise((resolve) => (arm = resolve));
    const json = open(
      'POST /json HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n',
    );
    await armed;
    expect(vi.getTimerCount()).toBe(1);
    json.socket.write('{"a":1}');
    expect(await json.closed).toMatch(/\{"got":\{"a":1\}\}$/);
    expect(vi.getTimerCount()).toBe(0);
  });
});
