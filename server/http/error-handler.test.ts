import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { StateWriteError } from '../sessions/types.ts';
import { errorHandler } from './error-handler.ts';

describe('errorHandler', () => {
  it('answers a failed state write with 503, its sentence and Retry-After, and logs the cause only', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString());
        callback();
      },
    });
    const app = Fastify({ logger: { level: 'error', stream } });
    app.setErrorHandler(errorHandler);
    app.get('/x', async () => {
      const cause = Object.assign(new Error('ENOSPC: no space left on device, write /var/x'), {
        code: 'ENOSPC',
      });
      throw new StateWriteError(cause);
    });
    const res = await app.inject('/x');
    await app.close();
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('30');
    expect(res.json()).toEqual({
      detail: 'The service cannot save sessions right now (the disk is full); try again later.',
    });
    expect(res.body).not.toContain('/var/x');
    expect(lines.join('')).toContain('ENOSPC');
  });

  it('answers anything unknown with a 500 that names nothing internal', async () => {
    const app = Fastify({ logger: false });
    app.setErrorHandler(errorHandler);
    app.get('/x', async () => {
      throw new Error('secret internal path /srv/streamgate/state');
    });
    const res = await app.inject('/x');
    await app.close();
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('/srv');
  });
});
