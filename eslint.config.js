import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import pluginQuery from '@tanstack/eslint-plugin-query';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

const features = ['catalog', 'launch', 'sessions', 'viewer', 'admin', 'settings', 'check'];

export default tseslint.config(
  {
    ignores: [
      'dist',
      'dist-apps',
      'node_modules',
      'coverage',
      'test-results',
      'playwright-report',
      'api/schema.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Query keys that name every input, stable query results, options objects used as TanStack Query means.
  ...pluginQuery.configs['flat/recommended'],
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] })],
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import-x/no-cycle': 'error',
      'no-restricted-globals': [
        'error',
        { name: 'alert', message: 'Show errors in the page, not in alert().' },
      ],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
      // One-way imports: shared code -> features -> app; a feature never imports another feature.
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            ...features.map((f) => ({
              target: `./src/features/${f}`,
              from: './src/features',
              except: [`./${f}`],
              message:
                'A feature never imports another feature; move shared code to src/lib or src/components.',
            })),
            { target: './src/features', from: './src/app', message: 'Features do not import the app.' },
            {
              target: ['./src/lib', './src/components', './src/player'],
              from: ['./src/features', './src/app'],
              message: 'Shared code does not import features or the app.',
            },
          ],
        },
      ],
    },
  },
  // The back end's parts, one way (their tests, the benches and the harnesses may import anything): the service and
  // the streaming applications meet only in protocol/ (the wire, the launch) and sandbox/ (the machine's isolation
  // and what a session leaves on it); a runner knows nothing of the sessions that use it.
  {
    files: ['server/**/*.ts', 'streamer/**/*.ts', 'protocol/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './server',
              from: ['./streamer', './src'],
              message:
                'The service imports nothing of the streaming applications or the portal: share it through protocol/ or sandbox/.',
            },
            {
              target: './streamer',
              from: ['./server', './src'],
              message:
                'The streaming applications import nothing of the service or the portal: share it through protocol/ or sandbox/.',
            },
            {
              target: './server/runners',
              from: './server/sessions',
              message:
                'A runner imports nothing of the sessions: what both need belongs to the runner (server/runners/runner.ts).',
            },
            // The streaming applications' floors, each on the ones below: runtime and files, then media (the
            // encoders and RTP), then transport (the stream server and its viewers), then the two applications.
            {
              target: ['./streamer/runtime', './streamer/files'],
              from: ['./streamer/media', './streamer/transport', './streamer/display', './streamer/sample'],
              message:
                'streamer/runtime and streamer/files are the floor every application stands on: they import none of the floors above.',
            },
            {
              target: './streamer/media',
              from: ['./streamer/transport', './streamer/display', './streamer/sample'],
              message:
                'streamer/media (encoders, RTP) knows nothing of the viewers or the applications above it.',
            },
            {
              target: './streamer/transport',
              from: ['./streamer/display', './streamer/sample'],
              message:
                'The stream server knows nothing of the applications that use it; they talk in its typed events.',
            },
            {
              target: './streamer/display',
              from: './streamer/sample',
              message: 'The display host and the sample application share only the floors below them.',
            },
            {
              target: './streamer/sample',
              from: './streamer/display',
              message: 'The display host and the sample application share only the floors below them.',
            },
            {
              target: './protocol',
              from: ['./server', './streamer', './src'],
              message: 'protocol/ is shared by every side and imports none of them.',
            },
            ...['./server', './streamer', './protocol'].map((target) => ({
              target,
              from: ['./test-support', './e2e', './bench', './reliability', './scripts'],
              message: 'Code that ships imports nothing of the tests, benches or scripts.',
            })),
          ],
        },
      ],
    },
  },
  // The player (src/player) is plain TypeScript over the browser's WebRTC: no React, MUI or portal code in it.
  {
    files: ['src/player/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['react', 'react/*', 'react-dom', 'react-dom/*', '@mui/*', '@emotion/*', '@tanstack/*'],
              message:
                'The player knows nothing of React or MUI; the viewer page meets it through its events.',
            },
            {
              regex: '^(\\.\\./)+(app|features|lib|components)(/|$)',
              message:
                "The player does not import the portal's code (src/app, src/features, src/lib, src/components).",
            },
          ],
        },
      ],
    },
  },
  // Outside src/player, the player is imported through its public surface, src/player/index.ts, only.
  {
    files: ['src/**/*.{ts,tsx}', 'e2e/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    ignores: ['src/player/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.{1,2}/)+(src/)?player/.+',
              message: 'Import the player from its index (src/player), not from a file inside it.',
            },
          ],
        },
      ],
    },
  },
);
