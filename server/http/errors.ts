/**
 * Typed errors that routes throw; the one error handler (server/http/error-handler.ts) turns them into
 * the contract's bodies (CONTRACT section 6).
 */

/** One entry of a 422 body, shaped like FastAPI's (Pydantic v2 type names). */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** A request that does not match the contract: 422 with every issue found. */
export class ValidationFailure extends Error {
  override name = 'ValidationFailure';
  constructor(public readonly issues: ValidationIssue[]) {
    super(issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '));
  }
}

/** An answer with a status and a one-sentence `detail` (403, 404, 410, 413, 503 ...). */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    public readonly statusCode: number,
    public readonly detail: string,
    public readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/** The answer of FastAPI's bearer scheme to a missing or unknown token. */
export const NOT_AUTHENTICATED = 'Not authenticated';

export function notFound(detail: string): HttpError {
  return new HttpError(404, detail);
}

export function forbidden(detail: string): HttpError {
  return new HttpError(403, detail);
}
