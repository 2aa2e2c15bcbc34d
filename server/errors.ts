/**
 * Errors that the service's parts throw for a caller to act on (CONTRACT section 6). Each carries the
 * status of its answer, so that the one error handler (server/http/error-handler.ts) turns any of them
 * into a body without knowing the part that threw it.
 */

/** An answer with a status, a one-sentence `detail` (403, 404, 410, 413, 429, 503 ...) and its headers. */
export class DomainError extends Error {
  override name = 'DomainError';
  constructor(
    public readonly statusCode: number,
    public readonly detail: string,
    public readonly headers: Record<string, string> = {},
    options?: ErrorOptions,
  ) {
    super(detail, options);
  }
}

/** One entry of a 422 body, shaped like FastAPI's (Pydantic v2 type names). */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** A request that does not match the contract, or names what does not exist: 422 with every issue found. */
export class ValidationFailure extends DomainError {
  override name = 'ValidationFailure';
  constructor(public readonly issues: ValidationIssue[]) {
    super(422, issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '));
  }
}

/** The answer of FastAPI's bearer scheme to a missing or unknown token. */
export const NOT_AUTHENTICATED = 'Not authenticated';

export function notFound(detail: string): DomainError {
  return new DomainError(404, detail);
}

export function forbidden(detail: string): DomainError {
  return new DomainError(403, detail);
}
