import { PassThrough } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { logDestination, prettyLog } from './log-output.ts';

/** What a logger writing to `prettyLog` prints for `write`. */
async function printed(write: (log: pino.Logger) => void): Promise<string> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const stream = prettyLog(out);
  write(pino({ base: { pid: 1, hostname: 'h' } }, stream));
  await new Promise((resolve) => setImmediate(resolve));
  return text;
}

describe('log output', () => {
  it('is JSON lines unless standard output is a terminal', () => {
    expect(logDestination({ isTTY: false })).toBeUndefined();
    expect(logDestination({})).toBeUndefined();
    expect(logDestination({ isTTY: true })).toBeDefined();
  });

  it('prints one readable line per request on a terminal, with the other fields after it', async () => {
    const text = await printed((log) => {
      log.info(
        {
          reqId: 'req-1',
          method: 'GET',
          url: '/api/stream',
          statusCode: 200,
          durationMs: 1.2,
          user: 'alice',
        },
        'request',
      );
      log.child({ component: 'sessions' }).warn({ id: 'abc' }, 'session failed');
    });
    const lines = text.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\] .*INFO.*: request GET \/api\/stream 200 1\.2 ms \(alice\)/);
    expect(lines[0]).not.toContain('{');
    expect(lines[1]).toMatch(/WARN.*: sessions: session failed .*\{"id":"abc"\}/);
  });
});
