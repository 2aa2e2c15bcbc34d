/**
 * The real sample application, for the hostile-input tests of its WHEP endpoint. Its ports are chosen by the
 * system at start: a fixed port of 32768-60999 can be held by any outgoing connection of the machine (the
 * load test leaves thousands), which once failed this suite with EADDRINUSE.
 */
import { launchStreamer, type StreamerProcess } from '../../test-support/streamer-process.ts';

export type { StreamerProcess };

/** Starts streamer/sample/main.ts at 320x180 on free ports and waits until /health answers 200. */
export async function startStreamer(): Promise<StreamerProcess> {
  const args = ['--width', '320', '--height', '180', '--fps', '15'];
  return launchStreamer({ args, readyWithinMs: 60_000 });
}
