/**
 * The ready line: an application the service starts (the sample application, the display host) writes one
 * line on a pipe the service hands it when it is ready, so that the service probes it at once rather than
 * at its next poll. The probe still decides (CONTRACT section 11); the line only saves the wait.
 */
import { closeSync, writeSync } from 'node:fs';

/** Names the descriptor of the pipe, in the application's environment. */
export const READY_FD_ENV = 'STREAMGATE_READY_FD';

/**
 * Writes the ready line and closes the pipe; nothing without READY_FD_ENV, which it takes out of `env`, so
 * a second call does nothing. Nothing is lost when the service is gone: the write fails and is let go (the
 * service probes the port when it comes back).
 */
export function announceReady(env: NodeJS.ProcessEnv = process.env): void {
  const fd = Number(env[READY_FD_ENV]);
  delete env[READY_FD_ENV];
  if (!Number.isInteger(fd) || fd < 3) return;
  try {
    writeSync(fd, 'ready\n');
  } catch {
    // the reader is gone
  }
  try {
    closeSync(fd);
  } catch {
    // not open
  }
}
