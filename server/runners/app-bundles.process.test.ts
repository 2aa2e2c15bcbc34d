import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { freePort, freeUdpPort } from '../../test-support/ports.ts';
import { appEntry, prepareAppBundles } from './app-bundles.ts';
import { repoRoot } from './local-runner.ts';

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
    const child = spawn(
      process.execPath,
      [
        bundle as string,
        '--signaling-port',
        String(signaling),
        '--media-port',
        String(media),
        '--width',
        '320',
        '--height',
        '180',
      ],
      { cwd: repoRoot, stdio: 'ignore' },
    );
    try {
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        status = (await fetch(`http://127.0.0.1:${signaling}/health`).catch(() => null))?.status ?? 0;
        if (status !== 200) await sleep(100);
      }
      expect(status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
