/**
 * A ready application that exits on its own: exit 0 (the person quit the program) ends its session;
 * any other exit fails it with a reason that quotes the application's last words.
 */
import { describe, expect, it } from 'vitest';
import { useManagerHarness } from '../../test-support/manager-harness.ts';
import { standInRequest, waitFor } from '../../test-support/session-support.ts';

// This file's ports: 28400-28409.
const { setup, pids } = useManagerHarness(28400, 28409);
const start = () => setup();

describe('an application that exits after it was ready', () => {
  it('ends its session when it exits with 0', async () => {
    const m = await start();
    const { id } = await m.create(standInRequest(['--exit-after-ms', '600', '--exit-code', '0']));
    await waitFor('ready', () => m.get(id)?.state === 'ready');
    pids.add(m.get(id)?.pid);
    await waitFor('the session to end', () => m.get(id) === undefined);
    expect(m.counts()).toMatchObject({ ready: 0, failed: 0 });
  });

  it('fails its session with its last words for any other exit', async () => {
    const m = await start();
    const { id } = await m.create(standInRequest(['--exit-after-ms', '600', '--exit-code', '3']));
    await waitFor('ready', () => m.get(id)?.state === 'ready');
    pids.add(m.get(id)?.pid);
    await waitFor('the session to fail', () => m.get(id)?.state === 'failed');
    expect(m.get(id)?.message).toBe(
      'USD Viewer 1.2.0 exited with code 3; it said: stand-in: exiting with code 3 as asked',
    );
  });
});
