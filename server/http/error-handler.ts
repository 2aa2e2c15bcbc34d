/**
 * The one place where errors become answers (CONTRACT section 6). Domain errors carry their status and
 * sentence; Fastify's own body-parsing errors map to the contract's 413 and 422; anything else is
 * logged and answered with a 500 that names nothing internal.
 */
import type { FastifyError, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { DomainError, ValidationFailure, type ValidationIssue } from '../errors.ts';
import { formatBytes } from '../../protocol/files.ts';

/** Bodies over this are refused with 413 (CONTRACT section 5). */
export const BODY_LIMIT = 64 * 1024;

const TOO_LARGE = `The request body is over ${BODY_LIMIT / 1024} KiB; send a smaller body.`;
const INTERNAL = 'Something went wrong on our side; try again, and tell the operator if it keeps failing.';

/**
 * Refuses a body declared over the limit before reading it, whatever its content type: the route's own limit
 * where it has one (a session's files take large uploads), else BODY_LIMIT.
 */
export const refuseDeclaredOversize: onRequestAsyncHookHandler = async (request) => {
  const length = Number(request.headers['content-length'] ?? 0);
  const limit = Math.max(BODY_LIMIT, request.routeOptions.bodyLimit ?? BODY_LIMIT);
  if (length > limit) {
    throw new DomainError(
      413,
      limit === BODY_LIMIT ? TOO_LARGE : `The request body is over ${formatBytes(limit)}.`,
    );
  }
};

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
  if (error instanceof DomainError) {
    // The system's error behind a sentence (a failed state write) is for the log only.
    if (error.cause !== undefined) request.log.error({ err: error.cause }, error.detail);
    return reply.code(error.statusCode).headers(error.headers).send({ detail: error.detail });
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
