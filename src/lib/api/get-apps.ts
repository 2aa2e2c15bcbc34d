import { getApiClients, normaliseList, unwrap, type Application, type ListEnvelope } from '../api-client';

/** GET /cfg/apps, filtered on the server by every given tag. */
export async function getApps(
  tags: readonly string[],
  signal?: AbortSignal,
): Promise<ListEnvelope<Application>> {
  const query = tags.length > 0 ? { tags: [...tags] } : {};
  const { data } = await unwrap(getApiClients().catalog.GET('/cfg/apps', { params: { query }, signal }));
  return normaliseList<Application>(data);
}
