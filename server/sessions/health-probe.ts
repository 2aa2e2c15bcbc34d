/**
 * Asks an application whether it is ready: GET /health on its signaling port answers 200, with a JSON
 * body that may say how many viewers are connected.
 */
import { request } from 'node:http';

/** One answer (or non-answer) of an application's GET /health. */
export interface Health {
  ok: boolean;
  /** Connected viewers, when the application reports them. */
  viewers?: number;
}

/** Where to reach an application that binds `host`: a wildcard bind is reached on the loopback. */
export function probeHost(host: string): string {
  return host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
}

/**
 * Never rejects: an application that does not answer in `timeoutMs` is simply not ready. `ticket` is
 * a viewer ticket of the session: without one an application says only whether it is ready.
 */
export function probeHealth(host: string, port: number, timeoutMs = 1_000, ticket?: string): Promise<Health> {
  return new Promise((resolve) => {
    // No keep-alive agent: a pooled socket would outlive the application and the probe.
    const req = request({
      host: probeHost(host),
      port,
      path: '/health',
      method: 'GET',
      headers: ticket ? { authorization: `Bearer ${ticket}` } : {},
      agent: false,
      timeout: timeoutMs,
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= 65_536) chunks.push(chunk);
      });
      res.on('end', () => {
        if (res.statusCode !== 200) return resolve({ ok: false });
        resolve({ ok: true, viewers: viewersOf(Buffer.concat(chunks).toString('utf8')) });
      });
      res.on('error', () => resolve({ ok: false }));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve({ ok: false }));
    req.end();
  });
}

function viewersOf(body: string): number | undefined {
  try {
    const data = JSON.parse(body) as { viewers?: unknown } | null;
    const viewers = data?.viewers;
    return typeof viewers === 'number' && Number.isFinite(viewers) && viewers >= 0 ? viewers : undefined;
  } catch {
    return undefined;
  }
}
