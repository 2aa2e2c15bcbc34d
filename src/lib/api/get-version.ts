import { getApiClients, unwrap, type VersionDetail } from '../api-client';

/** GET /cfg/apps/{id}/versions/{version}: confirms the version exists before a launch. */
export async function getVersion(id: string, version: string, signal?: AbortSignal): Promise<VersionDetail> {
  const { data } = await unwrap(
    getApiClients().catalog.GET('/cfg/apps/{id}/versions/{version}', {
      params: { path: { id, version } },
      signal,
    }),
  );
  return data;
}
