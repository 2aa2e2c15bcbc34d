import { describe, expect, it } from 'vitest';
import { TIMEOUTS } from './app.ts';
import { startTestApp } from '../test-support/test-support.ts';

describe('buildApp', () => {
  it('sets the time-outs that cut off slow clients on its HTTP server', async () => {
    const t = await startTestApp({ ports: { first: 28320, last: 28329 } });
    try {
      const server = t.app.server;
      expect(server.headersTimeout).toBe(TIMEOUTS.headersMs);
      // The whole request's deadline is the service's own (http/body-deadline.ts), which spares long uploads.
      expect(server.requestTimeout).toBe(0);
      expect(server.keepAliveTimeout).toBe(TIMEOUTS.keepAliveMs);
      expect(server.timeout).toBe(TIMEOUTS.idleMs);
      // The headers must be due before the whole request, or a slow header would outlive its bound.
      expect(TIMEOUTS.headersMs).toBeLessThan(TIMEOUTS.requestMs);
    } finally {
      await t.close();
    }
  });
});
