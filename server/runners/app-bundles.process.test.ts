import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startOwnedProcess } from '../../test-support/owned-process.ts';
import { freePort, freeUdpPort } from '../../test-support/ports.ts';
import { answers } from '../../test-support/until.ts';
import { appEntry, prepareAppBundles } from './app-bundles.ts';
import { repoRoot } from './local-spawn.ts';

/** How an application runs from its sources: tsx's loader by its address. */
const TSX_IMPORT = ['--import', pathToFileURL(path.join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href];

describe('application bundles', () => {
  it('run from the sources until prepared, then from a bundle that starts and serves', async () => {
    expect(appEntry('streamer')).toEqual([...TSX_IMPORT, path.join(repoRoot, 'streamer/sample/main.ts')]);
    const warnings: string[] = [];
    await prepareAppBundles(repoRoot, (message) => warnings.push(message));
    expect(warnings).toEqual([]);
    const [bundle] = appEntry('streamer');
    expect(bundle).toMatch(/dist-apps\/streamer\.mjs$/);
    expect(appEntry('display')[0]).toMatch(/dist-apps\/display\.mjs$/);

    const signaling = await freePort();
    const media = await freeUdpPort();
    const health = `http://127.0.0.1:${signaling}/health`;
    // Ready means /health answered 200: it throws, with the bundle's output, otherwise.
    const bundled = await startOwnedProcess({
      name: 'The bundled application',
      command: process.execPath,
      args: [
        ...[bundle as string, '--signaling-port', String(signaling), '--media-port', String(media)],
        ...['--width', '320', '--height', '180'],
      ],
      cwd: repoRoot,
      readyUrl: health,
      readyWithinMs: 20_000,
      graceMs: 5_000,
    });
    try {
      expect(await answers(health)).toBe(true);
    } finally {
      await bundled.stop();
    }
    expect(await answers(health)).toBe(false);
  });
});
