/**
 * The words of a failed call to a session's files. The service's `{detail}` says best what went wrong; where
 * an answer has none (a proxy's page, another deployment), the status says it in words a person can act on.
 */
import { ApiError, isApiError, normaliseDetail, unwrap, type ApiResult } from '../../../lib/api-client';

/** What the portal says when a call to the files got no answer at all. */
export const FILES_UNREACHABLE =
  'The session’s files could not be reached: check the network connection, then try again.';

/** Words for the statuses of the files routes, for an answer without its own sentence. */
const STATUS_WORDS: Record<number, string> = {
  403: 'You may not use this session’s files: only its owner or an administrator may.',
  404: 'This file is no longer there, or the session has ended.',
  409: 'The session’s files cannot be reached yet: wait until it has started, then try again.',
  410: 'The session has ended: its files went with it.',
  411: 'The browser did not say how large the file is, which the service needs: try again, or use another browser.',
  413: 'The file is larger than the session’s whole folder: it cannot go in.',
  422: 'The service refused this file name: rename the file, then try again.',
  502: 'The session’s application does not answer: try again in a moment.',
  507: 'The file does not fit in what is left of the folder: delete files to make room, then try again.',
};

/** The error of an answer with `status` and `body` (parsed JSON, or anything else). */
export function filesError(status: number, body: unknown): ApiError {
  if (status === 0) return new ApiError(0, FILES_UNREACHABLE);
  const detail = normaliseDetail(body, status);
  // `normaliseDetail` says only the status when the body had no sentence: the status's own words say more.
  const bare = detail === normaliseDetail(undefined, status);
  return new ApiError(status, bare ? (STATUS_WORDS[status] ?? detail) : detail);
}

/** `error` of the API client, with the words of the files routes where the answer had none. */
function asFilesError(error: unknown): unknown {
  if (!isApiError(error)) return error;
  if (error.status === 0) return filesError(0, undefined);
  return error.detail === normaliseDetail(undefined, error.status)
    ? filesError(error.status, undefined)
    : error;
}

/** `unwrap` of a call to the files routes: its failures in the words above. */
export async function unwrapFiles<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<ApiResult<T>> {
  try {
    return await unwrap(call);
  } catch (error) {
    throw asFilesError(error);
  }
}

/** One sentence for any failure of the files. */
export function filesErrorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return 'Something went wrong with the session’s files: try again.';
}
