/**
 * The request log: one line per answer, with everything a reader needs, written as each answer ends. A query
 * string can carry a secret (a token sent as `?token=...` is refused, but it was sent all the same), so the
 * log keeps the path and the names of the query's parameters, never their values.
 */
import type { onResponseAsyncHookHandler } from 'fastify';

const REDACTED = '[redacted]';

/**
 * `/api/stream?token=abc&x` -> `/api/stream?token=[redacted]&[redacted]`: a part without `=` may be
 * a secret itself.
 */
export function redactQuery(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const parts = url
    .slice(start + 1)
    .split('&')
    .map((part) => {
      const equals = part.indexOf('=');
      return equals < 0 ? (part === '' ? '' : REDACTED) : `${part.slice(0, equals)}=${REDACTED}`;
    });
  return `${url.slice(0, start)}?${parts.join('&')}`;
}

/** Writes one `request` line at `info` through the request's logger, once its answer has been sent. */
export const logRequest: onResponseAsyncHookHandler = async (request, reply) => {
  request.log.info(
    {
      method: request.method,
      url: redactQuery(request.url),
      statusCode: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
      user: request.principal?.user,
    },
    'request',
  );
};
