/** The real sample application on fixed ports, for the hostile-input tests of its WHEP endpoint. */
import { launchStreamer, type StreamerProcess } from '../../test-support/streamer-process.ts';

export type { StreamerProcess };

/** Starts streamer/sample/main.ts at 320x180 and waits until /health answers 200. */
export async function startStreamer(signalingPort: number, mediaPort: number): Promise<StreamerProcess> {
  const args = ['--width', '320', '--height', '180', '--fps', '15'];
  return launchStreamer({ signalingPort, mediaPort, args, readyWithinMs: 60_000 });
}
