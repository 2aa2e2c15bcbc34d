import { configDefaults, defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

/**
 * Tests that start real processes (Xvfb, ffmpeg, the sample application, the stand-in application or the
 * service) are named `*.process.test.ts`. They wait on real time, which no fake timer can hurry, and share two
 * cores, so they run one file at a time in a project of their own.
 * Every other test of the service, the applications and the sandbox runs in-process on fake or injected time.
 */
const processTests = ['**/*.process.test.ts'];

export default defineConfig({
  plugins: [react()],
  test: {
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          include: [
            'server/**/*.test.ts',
            'streamer/**/*.test.ts',
            'protocol/**/*.test.ts',
            'sandbox/**/*.test.ts',
            'scripts/**/*.test.ts',
            'api/**/*.test.ts',
            'bench/**/*.test.ts',
          ],
          exclude: [...configDefaults.exclude, ...processTests],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'processes',
          environment: 'node',
          include: processTests,
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'dom',
          environment: 'jsdom',
          include: ['src/**/*.test.{ts,tsx}'],
          setupFiles: ['src/test/setup.ts'],
          testTimeout: 15_000,
        },
      },
    ],
  },
});
