/**
 * The whole request within a deadline, against clients that trickle a body a byte at a time (slowloris), as
 * Node's own `requestTimeout` would do: the connection gets a 408 and closes. Node's applies to every request of
 * a server alike, and would cut off an upload of a session's files that takes longer than it; this one passes
 * over the routes that take bodies larger than BODY_LIMIT (they stream them on as they arrive, server/routes/
 * files.ts), which the connection's idle time-out alone ends when they stop. Requests without a body (most)
 * cost nothing: the headers have their own time-out, which Node keeps.
 */
import type { onRequestHookHandler } from 'fastify';
import { clientErrorHandler } from './client-errors.ts';
import { BODY_LIMIT } from './error-handler.ts';

/** A hook that gives each request with a body `ms` from its headers to the end of its body. */
export function bodyDeadline(ms: number): onRequestHookHandler {
  return (request, reply, done) => {
    const raw = request.raw;
    const { headers } = raw;
    const body = headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
    if (!body || raw.complete || (request.routeOptions.bodyLimit ?? BODY_LIMIT) > BODY_LIMIT) return done();
    const timer = setTimeout(() => {
      if (raw.complete) return;
      // Answered as Node answers its own time-out, on the connection, which then closes.
      const late = Object.assign(new Error('The request took too long to arrive.'), {
        code: 'ERR_HTTP_REQUEST_TIMEOUT',
      });
      if (reply.raw.headersSent) raw.socket.destroy();
      else clientErrorHandler(late, raw.socket);
    }, ms);
    const settle = () => clearTimeout(timer);
    raw.once('end', settle);
    raw.once('close', settle);
    reply.raw.once('close', settle);
    done();
  };
}
