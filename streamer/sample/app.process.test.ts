import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freeUdpPort } from '../../test-support/ports.ts';
import { until } from '../../test-support/until.ts';
import { startStreamer, type Streamer } from './app.ts';
import { parseLaunch } from '../../protocol/launch.ts';

describe('an application whose encoder cannot run', () => {
  let streamer: Streamer | undefined;
  afterEach(async () => {
    await streamer?.close();
    delete process.env.STREAMGATE_FFMPEG;
  });

  it('gives up with the reason, since it says it is ready before its first frame', async () => {
    // An "ffmpeg" that fails at once, as one without the codec does.
    process.env.STREAMGATE_FFMPEG = 'false';
    const options = parseLaunch(['--signaling-port', '1', '--media-port', String(await freeUdpPort())]);
    streamer = await startStreamer({ ...options, signalingPort: 0 });
    const end = await streamer.done;
    expect(end.code).toBe(1);
    expect(end.reason).toMatch(/^the video encoder failed before its first frame: ffmpeg exited \(1\)/);
    // It answers ready all the same until it exits: ready means it listens (CONTRACT section 11).
    expect(streamer.health()).not.toBeNull();
  });
});

/** The pids of this process's children still running (not yet reaped zombies are gone already: state Z). */
function children(): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The fields after the command's closing parenthesis: state, then the parent's pid.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) === process.pid && state !== 'Z') found.push(Number(name));
    } catch {
      // gone between the listing and the read
    }
  }
  return found;
}

describe('an application whose start fails', () => {
  it('leaves no encoder behind when its signaling port is taken (its scope undoes the start)', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const port = (holder.address() as { port: number }).port;
      const options = parseLaunch([
        '--signaling-port',
        String(port),
        '--media-port',
        String(await freeUdpPort()),
      ]);
      const before = children();
      await expect(startStreamer(options)).rejects.toThrow(/EADDRINUSE/);
      await until('the encoder to be gone', () => children().every((pid) => before.includes(pid)), 10_000);
    } finally {
      holder.close();
    }
  });
});
