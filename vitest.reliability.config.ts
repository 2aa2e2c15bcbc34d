/**
 * The reliability suite (`npm run test:reliability`): real service processes under load, faults and
 * hostile input. One file at a time, since each file starts its own processes on a two-core machine.
 * RELIABILITY_PROFILE=full runs the full sizes; the default `ci` is trimmed.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['reliability/**/*.test.ts'],
    environment: 'node',
    fileParallelism: false,
    maxWorkers: 1,
    testTimeout: 180_000,
    hookTimeout: 120_000,
    // Figures are printed with console.log; show them as they come.
    silent: false,
  },
});
