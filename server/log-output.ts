/**
 * Where the service's log lines go. A person watching a terminal reads one short coloured line per event;
 * anything else (a file, a pipe, a log collector) gets pino's JSON lines, one object per line.
 */
import type { DestinationStream } from 'pino';
import pretty from 'pino-pretty';

/** Fields a pretty line shows in its message (or leaves out), rather than after it as JSON. */
const SHOWN = ['pid', 'hostname', 'reqId', 'component', 'method', 'url', 'statusCode', 'durationMs', 'user'];

/**
 * Readable lines (`12:00:01 INFO: request GET /api/stream 200 1.2 ms (alice)`), written to `destination`
 * (standard output by default); other fields of a line follow it as compact JSON.
 */
export function prettyLog(destination: number | NodeJS.WritableStream = 1): DestinationStream {
  return pretty({
    destination,
    translateTime: 'SYS:HH:MM:ss',
    singleLine: true,
    ignore: SHOWN.join(','),
    messageFormat:
      '{if component}{component}: {end}{msg}{if method} {method} {url} {statusCode} {durationMs} ms{end}{if user} ({user}){end}',
  });
}

/** Readable lines when `stdout` is a terminal; undefined (the app's JSON lines) otherwise. */
export function logDestination(stdout: { isTTY?: boolean } = process.stdout): DestinationStream | undefined {
  return stdout.isTTY ? prettyLog() : undefined;
}
