/**
 * The one place where errors become answers (CONTRACT section 6). Typed errors map to their bodies;
 * Fastify's own body-parsing errors map to the contract's 413 and 422; anything else is logged and
 * answered with a 500 that names nothing internal.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { QueueFullError } from '../sessions/types.ts';
import { HttpError, ValidationFailure, type ValidationIssue } from './errors.ts';

/** Bodies over this are refused with 413 (CONTRACT section 5). */
export const BODY_LIMIT = 64 * 1024;

const TOO_LARGE = `The request body is over ${BODY_LIMIT / 1024} KiB; send a smaller body.`;
/** A disk that is full or read-only is not fixed in seconds; ask callers to wait a while. */
const STATE_WRITE_RETRY_SECONDS = 30;
const INTERNAL = 'Something went wrong on our side; try again, and tell the operator if it keeps failing.';

function bodyIssue(code: string | undefined): ValidationIssue | null {
  switch (code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { loc: ['body'], msg: 'Field required', type: 'missing' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        loc: ['body'],
        msg: 'Input should be a JSON object (Content-Type: application/json)',
        type: 'model_type',
      };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { loc: ['body', 0], msg: 'JSON decode error', type: 'json_invalid' };
    default:
      return null;
  }
}

/** Fastify's error handler for the whole app. */
export function errorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error instanceof ValidationFailure) return reply.code(422).send({ detail: error.issues });
  if (error instanceof HttpError)
    return reply.code(error.statusCode).headers(error.headers).send({ detail: error.detail });
  if (error instanceof QueueFullError) {
    return reply
      .code(503)
      .header('retry-after', String(Math.max(1, Math.ceil(error.retryAfterSeconds))))
      .send({ detail: 'Every GPU is busy and the queue is full; try again in a little while.' });
  }
  // Matched by name: the session machinery's StateWriteError (sessions/types.ts) carries a sentence for
  // the caller and the system's error as its cause, which only the log gets.
  if ((error as Error).name === 'StateWriteError') {
    request.log.error({ err: (error as Error).cause ?? error }, 'could not save the session state');
    return reply
      .code(503)
      .header('retry-after', String(STATE_WRITE_RETRY_SECONDS))
      .send({ detail: error.message });
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413) {
    return reply.code(413).send({ detail: TOO_LARGE });
  }
  const issue = bodyIssue(error.code);
  if (issue) return reply.code(422).send({ detail: [issue] });
  // The JSON parser's syntax errors (and prototype-poisoning refusals) carry 400 and no code.
  if (error.statusCode === 400 && (error instanceof SyntaxError || request.headers['content-type'])) {
    return reply
      .code(422)
      .send({ detail: [{ loc: ['body', 0], msg: 'JSON decode error', type: 'json_invalid' }] });
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return reply
      .code(error.statusCode)
      .send({ detail: 'The request could not be understood; check its form.' });
  }
  request.log.error({ err: error }, 'unexpected error');
  return reply.code(500).send({ detail: INTERNAL });
}
