import { createSocket } from 'node:dgram';
import { describe, expect, it } from 'vitest';
import { freeUdpPort } from '../../test-support/ports.ts';
import { answers, until } from '../../test-support/until.ts';
import { makeOffer, openViewer } from '../../test-support/whep-viewer.ts';
import { startStreamer } from '../sample/app.ts';
import { parseLaunch } from '../../protocol/launch.ts';

describe('a media port held by another program', () => {
  it('refuses the viewer with 503 and keeps the application alive until the port is free again', async () => {
    const mediaPort = await freeUdpPort();
    const options = parseLaunch([
      '--signaling-port',
      '1',
      '--media-port',
      String(mediaPort),
      '--width',
      '320',
    ]);
    const streamer = await startStreamer({ ...options, height: 240, signalingPort: 0 });
    const base = `http://127.0.0.1:${streamer.signalingPort}`;
    const squatter = createSocket('udp4');
    try {
      await until('the application to answer /health', () => answers(`${base}/health`));
      await new Promise<void>((resolve) => squatter.bind(mediaPort, '127.0.0.1', resolve));
      const { sdp, pc } = await makeOffer();
      const res = await fetch(`${base}/whep`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/sdp' },
        body: sdp,
      });
      pc.close();
      expect(res.status).toBe(503);
      expect(await res.text()).toMatch(/media port .* held by another program/);
      await new Promise<void>((resolve) => squatter.close(resolve));
      const viewer = await openViewer(base);
      await viewer.close();
      expect((await fetch(`${base}/health`)).status).toBe(200);
    } finally {
      await streamer.close();
    }
  });
});
