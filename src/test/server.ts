/** The MSW server of the component tests: each test adds the handlers it needs. */
import { setupServer } from 'msw/node';

/** Shared MSW server; handlers are reset after every test. */
export const server = setupServer();

/** A URL pattern for a path of the API under the default `/api` base. */
export function api(path: string): string {
  return `*/api${path}`;
}
