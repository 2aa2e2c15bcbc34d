/** Sessions made through the API, for the end-to-end tests that need the GPUs busy. */
import { expect, type APIRequestContext } from '@playwright/test';

/**
 * Starts a session of `app` (`sample-editor` unless told) on profile `small` and waits until it runs: with a
 * capacity of one, it fills the only GPU. Returns its id.
 */
export async function startRunningSession(
  request: APIRequestContext,
  apiURL: string,
  app = 'sample-editor',
): Promise<string> {
  const res = await request.post(`${apiURL}/stream`, { data: { id: app, profile: 'small' } });
  expect([200, 202]).toContain(res.status());
  const { id } = (await res.json()) as { id: string };
  await expect
    .poll(async () => (await request.get(`${apiURL}/stream/${id}`)).status(), { timeout: 30_000 })
    .toBe(200);
  return id;
}
