/** Words for an API failure, so every page explains the same status the same way. */
import { isApiError } from './api-client';
import { signsIn } from './auth/sign-in';

/** One sentence a person can act on for any error a query or mutation produced. */
export function describeError(error: unknown, what = 'This item'): string {
  if (!isApiError(error)) return error instanceof Error ? error.message : 'Something went wrong.';
  const detail = typeof error.detail === 'string' ? error.detail : error.issues.map((i) => i.msg).join('; ');
  switch (error.status) {
    case 0:
      return 'The service could not be reached. Check your network or the settings, then retry.';
    case 401:
    case 403:
      // Where people sign in, the settings' token is not theirs to fix: their sign-in or their groups are.
      return `You do not have permission to do this: ${detail} ${
        signsIn() ? 'Ask an administrator if you need it.' : 'Check the access token in Settings.'
      }`;
    case 404:
      return `${what} no longer exists (${detail}).`;
    case 410:
      // The service's detail already says so ("The session failed: …"); another deployment's may not.
      return /^the session failed\b/i.test(detail) ? detail : `The session failed: ${detail}`;
    case 422:
      return `The request is invalid: ${detail}`;
    case 429:
    case 503:
      // When to try again, unless the detail says it already (the rate limit's does, with the same wait).
      if (error.retryAfter !== undefined) {
        const said = detail.toLowerCase().includes(`try again in ${error.retryAfter} s`);
        return said ? detail : `${detail} Try again in ${error.retryAfter} s.`;
      }
      return /try again/i.test(detail) ? detail : `${detail} Try again in a moment.`;
    default:
      return error.status >= 500 ? `The service failed (${error.status}): ${detail}` : detail;
  }
}
