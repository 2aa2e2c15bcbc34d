import { getApiClients, normaliseList, unwrap, type ArgumentDeclaration } from '../api-client';
import { sortVersions, type VersionInfo } from '../versions';

/**
 * GET /cfg/apps/{id}/versions, sorted newest first by SemVer whatever order the service used, each with the
 * launch arguments it declares where the service declares them.
 */
export async function getVersions(id: string, signal?: AbortSignal): Promise<VersionInfo[]> {
  const { data } = await unwrap(
    getApiClients().catalog.GET('/cfg/apps/{id}/versions', { params: { path: { id } }, signal }),
  );
  const items = normaliseList<{ version: string; arguments?: ArgumentDeclaration[] }>(data).items;
  const declared = new Map(
    items.flatMap((v): [string, ArgumentDeclaration[]][] =>
      Array.isArray(v.arguments) ? [[v.version, v.arguments]] : [],
    ),
  );
  return sortVersions(items.map((v) => v.version)).map((v) => {
    const args = declared.get(v.version);
    return args ? { ...v, arguments: args } : v;
  });
}
