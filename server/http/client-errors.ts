/**
 * Answers for requests that Node's HTTP parser refuses before any route sees them, with the contract's
 * `{"detail": "..."}` body: a request line too long (414), a header section too large (431), a client
 * too slow (408), anything else malformed (400).
 */
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

/** What Node's parser says about a request it refused: `rawPacket` holds the bytes it was reading. */
interface ClientError extends Error {
  code?: string;
  rawPacket?: unknown;
}

/**
 * Whether the parser ran out of room in the request line itself: the bytes it read start a request and
 * its first line is longer than the whole header section may be (or does not end at all).
 */
function requestLineTooLong(error: ClientError): boolean {
  const raw = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.toString('latin1') : '';
  if (!/^[A-Z]+ /.test(raw)) return false;
  const end = raw.indexOf('\n');
  return end < 0 || end > maxHeaderSize;
}

function answerTo(error: ClientError): [number, string] {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return [408, 'The request took too long to arrive; send it again at once.'];
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return requestLineTooLong(error)
      ? [414, `The address is over ${maxHeaderSize / 1024} KiB; use a shorter one.`]
      : [431, `The request headers are over ${maxHeaderSize / 1024} KiB in all; send fewer or smaller ones.`];
  }
  return [400, 'The request is not valid HTTP; check its form.'];
}

/** Fastify's `clientErrorHandler`: one answer, then the connection closes (the parser cannot go on). */
export function clientErrorHandler(error: ClientError, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const [status, detail] = answerTo(error);
    const body = JSON.stringify({ detail });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
