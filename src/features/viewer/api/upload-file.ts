import { bearerToken } from '../../../lib/auth/credential';
import { getConfig, resolveBaseUrl } from '../../../lib/config';
import { filesError } from './files-error';

/** What an upload reports as it goes, and how it is stopped. */
export interface UploadOptions {
  /** Bytes sent so far of `total`. */
  onProgress?: (loaded: number, total: number) => void;
  /** Aborting it stops the upload; the promise then rejects with an `AbortError`. */
  signal?: AbortSignal;
}

/** The body of an answer, parsed where it is JSON (a proxy's HTML page is kept as text). */
function answerBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * PUT /stream/{session_id}/files/{name}: `file` becomes the file `name` of the session's folder. Through
 * XMLHttpRequest, since fetch reports no upload progress; with the caller's credential in the header as every
 * request of the API client (never in the URL), as `application/octet-stream`, its length said by the browser.
 * Rejects with an `ApiError` in words, or an `AbortError` once `signal` aborts it.
 */
export async function uploadFile(
  sessionId: string,
  name: string,
  file: Blob,
  { onProgress, signal }: UploadOptions = {},
): Promise<void> {
  const config = getConfig();
  const token = await bearerToken(config);
  signal?.throwIfAborted();
  const url = `${resolveBaseUrl(config.streamUrl)}/stream/${encodeURIComponent(sessionId)}/files/${encodeURIComponent(name)}`;
  return new Promise<void>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const abort = () => xhr.abort();
    const settle = (outcome: () => void) => {
      signal?.removeEventListener('abort', abort);
      outcome();
    };
    xhr.open('PUT', url);
    if (token !== null) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.upload.onprogress = (event) =>
      onProgress?.(event.loaded, event.lengthComputable ? event.total : file.size);
    xhr.onload = () =>
      settle(() => {
        if (xhr.status >= 200 && xhr.status < 300) {
          onProgress?.(file.size, file.size);
          resolve();
        } else reject(filesError(xhr.status, answerBody(xhr.responseText)));
      });
    // No answer at all: the network, or a service that closed the connection.
    xhr.onerror = () => settle(() => reject(filesError(0, undefined)));
    xhr.onabort = () => settle(() => reject(new DOMException('The upload was cancelled.', 'AbortError')));
    signal?.addEventListener('abort', abort, { once: true });
    xhr.send(file);
  });
}
