import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { DEFAULT_CONFIG, setFileConfig } from '../lib/config';
import { server } from './server';

// Pages load lazily and two cores are shared: allow findBy/waitFor more than the 1 s default.
configure({ asyncUtilTimeout: 10_000 });

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  cleanup();
  server.resetHandlers();
  localStorage.clear();
  setFileConfig(DEFAULT_CONFIG);
});
afterAll(() => server.close());
