import { ApiError, createApiClients, normaliseList, unwrap } from '../../../lib/api-client';
import type { PortalConfig } from '../../../lib/config';
import { describeError } from '../../../lib/error-text';

/** What "test connection" found on one API. */
export interface ProbeResult {
  ok: boolean;
  message: string;
}

/** Calls both APIs with the given (maybe unsaved) settings and reports what each answered. */
export async function testConnection(
  config: PortalConfig,
): Promise<{ catalog: ProbeResult; stream: ProbeResult }> {
  const clients = createApiClients(config);
  const catalog = unwrap(clients.catalog.GET('/cfg/apps', { params: { query: {} } })).then(
    ({ data, status }): ProbeResult => {
      const count = normaliseList(data).count;
      return {
        ok: true,
        message: `Catalog API answered ${status}: ${count} application${count === 1 ? '' : 's'}.`,
      };
    },
    (error: unknown): ProbeResult => ({
      ok: false,
      message: `Catalog API: ${describeError(error, 'The catalog')}`,
    }),
  );
  const stream = unwrap(clients.stream.GET('/stream', { params: { query: { limit: 1 } } })).then(
    ({ data, status }): ProbeResult => {
      const count = normaliseList(data).count;
      return {
        ok: true,
        message: `Streaming API answered ${status}: ${count} session${count === 1 ? '' : 's'}.`,
      };
    },
    (error: unknown): ProbeResult => {
      // The list is an extension; a 404/405 still proves the base answers.
      if (error instanceof ApiError && (error.status === 404 || error.status === 405)) {
        return {
          ok: true,
          message: `Streaming API answered ${error.status}: it does not list sessions; this browser remembers its own.`,
        };
      }
      return { ok: false, message: `Streaming API: ${describeError(error, 'The streaming API')}` };
    },
  );
  return { catalog: await catalog, stream: await stream };
}
