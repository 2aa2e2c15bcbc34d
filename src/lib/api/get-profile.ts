import { getApiClients, unwrap, type Profile } from '../api-client';

/** GET /cfg/apps/{id}/versions/{version}/profiles/{profile}: 404 when it does not apply. */
export async function getProfile(
  id: string,
  version: string,
  profile: string,
  signal?: AbortSignal,
): Promise<Profile> {
  const { data } = await unwrap(
    getApiClients().catalog.GET('/cfg/apps/{id}/versions/{version}/profiles/{profile}', {
      params: { path: { id, version, profile } },
      signal,
    }),
  );
  return data;
}
