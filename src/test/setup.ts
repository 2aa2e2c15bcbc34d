import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startSignIn } from '../lib/auth/sign-in';
import { DEFAULT_CONFIG, setFileConfig } from '../lib/config';
import { server } from './server';

// Pages load lazily and two cores are shared: allow findBy/waitFor more than the 1 s default.
configure({ asyncUtilTimeout: 10_000 });

/**
 * Requests no handler answered during the current test. A component that survives the failed request passes its
 * test anyway, and MSW's own 'error' strategy only prints: such a test fails here instead, naming the requests,
 * so that no passing run prints what looks like a failure.
 */
const unhandled: string[] = [];

beforeAll(() =>
  server.listen({
    onUnhandledRequest(request) {
      const url = new URL(request.url);
      unhandled.push(`${request.method} ${url.pathname}${url.search}`);
    },
  }),
);
afterEach(async () => {
  cleanup();
  server.resetHandlers();
  localStorage.clear();
  sessionStorage.clear();
  setFileConfig(DEFAULT_CONFIG);
  // A test that signed someone in leaves no one signed in, and no renewal timer, to the next.
  await startSignIn(undefined);
  const missed = unhandled.splice(0);
  if (missed.length > 0) throw new Error(`No MSW handler answered: ${[...new Set(missed)].join(', ')}`);
});
afterAll(() => server.close());
