/**
 * The back end's import rules (eslint.config.js) hold: ESLint refuses a file that imports across a line the rules
 * draw, with the rule's own words, and lets a permitted import through. Each snippet is linted as if it stood at
 * a path of the repository, whose files it names, so the rules see the real folders.
 */
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
// One linter for every case: it reads eslint.config.js once.
const eslint = new ESLint({ cwd: root });

/** The messages of the import rule for `code` standing at `file`. */
async function importProblems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'import-x/no-restricted-paths')
    .map((message) => message.message);
}

describe('the back end imports one way', () => {
  it('refuses a runner that imports the sessions', async () => {
    const problems = await importProblems(
      'server/runners/x.ts',
      "import type { SessionRecord } from '../sessions/types.ts';\nexport type X = SessionRecord;\n",
    );
    expect(problems).toEqual([
      expect.stringContaining(
        'A runner imports nothing of the sessions: what both need belongs to the runner (server/runners/runner.ts).',
      ),
    ]);
  });

  it('refuses the service importing a streaming application', async () => {
    const problems = await importProblems(
      'server/runners/x.ts',
      "import { startXServer } from '../../streamer/display/x-server.ts';\nexport const x = startXServer;\n",
    );
    expect(problems).toEqual([
      expect.stringContaining(
        'The service imports nothing of the streaming applications or the portal: share it through protocol/ or sandbox/.',
      ),
    ]);
  });

  it('refuses a streaming application importing the service, and protocol/ importing either', async () => {
    const streamer = await importProblems(
      'streamer/display/x.ts',
      "import { ServiceSandbox } from '../../server/runners/service-sandbox.ts';\nexport const x = ServiceSandbox;\n",
    );
    expect(streamer).toEqual([
      expect.stringContaining(
        'The streaming applications import nothing of the service or the portal: share it through protocol/ or sandbox/.',
      ),
    ]);
    const protocol = await importProblems(
      'protocol/x.ts',
      "import { even } from '../streamer/runtime/stream-options.ts';\nexport const x = even;\n",
    );
    expect(protocol).toEqual([
      expect.stringContaining('protocol/ is shared by every side and imports none of them.'),
    ]);
  });

  it('refuses a floor of the streaming applications importing one above it', async () => {
    const transport = await importProblems(
      'streamer/transport/x.ts',
      "import { startDisplayHost } from '../display/display-host.ts';\nexport const x = startDisplayHost;\n",
    );
    expect(transport).toEqual([
      expect.stringContaining('The stream server knows nothing of the applications that use it'),
    ]);
    const media = await importProblems(
      'streamer/media/x.ts',
      "import { StreamServer } from '../transport/stream-server.ts';\nexport const x = StreamServer;\n",
    );
    expect(media).toEqual([
      expect.stringContaining('streamer/media (encoders, RTP) knows nothing of the viewers'),
    ]);
    const below = await importProblems(
      'streamer/transport/x.ts',
      "import { VideoFanout } from '../media/rtp.ts';\nimport { Scope } from '../runtime/scope.ts';\nexport const x = [VideoFanout, Scope];\n",
    );
    expect(below).toEqual([]);
  });

  it('lets the shared folders through, and a test import anything', async () => {
    const shared = await importProblems(
      'server/runners/x.ts',
      [
        "import { parseLaunch } from '../../protocol/launch.ts';",
        "import { sweepStaleDisplays } from '../../sandbox/leftovers.ts';",
        "import type { SessionRequest } from './runner.ts';",
        'export const x = [parseLaunch, sweepStaleDisplays];',
        'export type Y = SessionRequest;',
        '',
      ].join('\n'),
    );
    expect(shared).toEqual([]);
    const test = await importProblems(
      'server/runners/x.test.ts',
      "import { createSessionManager } from '../sessions/manager.ts';\nexport const x = createSessionManager;\n",
    );
    expect(test).toEqual([]);
  });
});
