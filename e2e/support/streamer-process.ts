/** The sample application or the display host as a child process, for the specs and benches: test-support/streamer-process.ts. */
export {
  launchStreamer,
  type LaunchOptions,
  type StreamerProcess,
} from '../../test-support/streamer-process';
