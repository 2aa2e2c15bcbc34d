import type { components } from '../../../api/schema';
import { getApiClients, isApiError, unwrap } from '../api-client';

export type Capacity = components['schemas']['Capacity'];

/**
 * GET /admin/capacity (CONTRACT §16), on the stream base. Real deployments lack it, and only admins may
 * read it: both give null, and the page shows nothing in its place. Other failures reject.
 */
export async function getCapacity(signal?: AbortSignal): Promise<Capacity | null> {
  try {
    const { data } = await unwrap(getApiClients().stream.GET('/admin/capacity', { signal }));
    return data;
  } catch (error) {
    if (isApiError(error) && [401, 403, 404, 405].includes(error.status)) return null;
    throw error;
  }
}
