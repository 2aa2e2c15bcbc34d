import { getApiClients, normaliseList, unwrap, type Profile } from '../api-client';

/** GET /cfg/apps/{id}/versions/{version}/profiles. */
export async function getProfiles(id: string, version: string, signal?: AbortSignal): Promise<Profile[]> {
  const { data } = await unwrap(
    getApiClients().catalog.GET('/cfg/apps/{id}/versions/{version}/profiles', {
      params: { path: { id, version } },
      signal,
    }),
  );
  return normaliseList<Profile>(data).items;
}
