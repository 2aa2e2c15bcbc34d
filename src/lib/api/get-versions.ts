import { getApiClients, normaliseList, unwrap, type ArgumentDeclaration } from '../api-client';
import { readOpens, sortVersions, type VersionInfo } from '../versions';

/** A version item as the portal reads it; `opens` is optional and may be missing from the generated types. */
interface VersionItem {
  version: string;
  arguments?: ArgumentDeclaration[];
  opens?: unknown;
}

/**
 * GET /cfg/apps/{id}/versions, sorted newest first by SemVer whatever order the service used, each with the
 * launch arguments it declares and the file extensions it opens, where the service says so.
 */
export async function getVersions(id: string, signal?: AbortSignal): Promise<VersionInfo[]> {
  const { data } = await unwrap(
    getApiClients().catalog.GET('/cfg/apps/{id}/versions', { params: { path: { id } }, signal }),
  );
  const items = new Map(normaliseList<VersionItem>(data).items.map((v) => [v.version, v]));
  return sortVersions([...items.keys()]).map((v) => {
    const item = items.get(v.version);
    const opens = readOpens(item?.opens);
    return {
      ...v,
      ...(Array.isArray(item?.arguments) ? { arguments: item.arguments } : {}),
      ...(opens ? { opens } : {}),
    };
  });
}
