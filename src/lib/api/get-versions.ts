import { getApiClients, normaliseList, unwrap } from '../api-client';
import { sortVersions, type VersionInfo } from '../versions';

/** GET /cfg/apps/{id}/versions, sorted newest first by SemVer whatever order the service used. */
export async function getVersions(id: string, signal?: AbortSignal): Promise<VersionInfo[]> {
  const { data } = await unwrap(
    getApiClients().catalog.GET('/cfg/apps/{id}/versions', { params: { path: { id } }, signal }),
  );
  return sortVersions(normaliseList<{ version: string }>(data).items.map((v) => v.version));
}
