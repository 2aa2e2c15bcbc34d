/**
 * The service's order to an application to stop the sharing of its session: `POST /sharing/stop` on its
 * signaling port with a service ticket (protocol/viewer-ticket.ts), which carries the cutoff. Only the service
 * signs such tickets; people never get one.
 */
import { request } from 'node:http';
import { probeHost } from './health-probe.ts';

/**
 * Sends the order; resolves with the watchers the application dropped, or null when it did not take it (no
 * answer within `timeoutMs`, or an answer other than 200). Never rejects.
 */
export function orderStopSharing(
  host: string,
  port: number,
  ticket: string,
  timeoutMs = 2_000,
): Promise<number | null> {
  return new Promise((resolve) => {
    const req = request({
      host: probeHost(host),
      port,
      path: '/sharing/stop',
      method: 'POST',
      headers: { authorization: `Bearer ${ticket}`, 'content-length': 0 },
      agent: false,
      timeout: timeoutMs,
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < 4_096) body += chunk;
      });
      res.on('end', () => resolve(res.statusCode === 200 ? droppedOf(body) : null));
      res.on('error', () => resolve(null));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end();
  });
}

function droppedOf(body: string): number {
  try {
    const dropped = (JSON.parse(body) as { watchers_dropped?: unknown } | null)?.watchers_dropped;
    return typeof dropped === 'number' && Number.isInteger(dropped) && dropped >= 0 ? dropped : 0;
  } catch {
    return 0;
  }
}
