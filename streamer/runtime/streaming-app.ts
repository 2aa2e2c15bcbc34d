/**
 * What both streaming applications, the sample and the display host, are once started: main.ts serves on the
 * signaling port, waits for the end and exits with its code, or closes the application on a signal.
 */

/** How an application ends: the code its process exits with, and the reason its last line gives. */
export interface AppEnd {
  code: number;
  reason: string;
}

/** A started application. */
export interface StreamingApp {
  /** The port actually bound (0 asks the system, in tests). */
  signalingPort: number;
  /** Resolves once the application can no longer stream (its program or display gone, its encoder failed). */
  done: Promise<AppEnd>;
  /** Stops everything the start made, newest first. */
  close(): Promise<void>;
}
