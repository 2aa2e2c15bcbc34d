import { getApiClients, unwrap, type Application } from '../api-client';

/** GET /cfg/apps/{id}. */
export async function getApp(id: string, signal?: AbortSignal): Promise<Application> {
  const { data } = await unwrap(
    getApiClients().catalog.GET('/cfg/apps/{id}', { params: { path: { id } }, signal }),
  );
  return data;
}
