/** Small HTTP helpers for the suite: JSON calls, and raw sockets for what fetch cannot send. */
import { connect, type Socket } from 'node:net';

export interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
  text: string;
}

/** One call; the body is parsed when it is JSON. */
export async function call(
  url: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body !== undefined
      ? { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }
      : {}),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** Sends raw bytes on a new connection and returns everything the server wrote before closing. */
export async function raw(port: number, request: string | Buffer, waitMs = 2_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    // The server may answer and close before a large request is fully written; that is an answer too.
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error),
    );
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.write(request);
  });
}

/** Opens a connection and writes `pieces` one at a time, `everyMs` apart, until the server closes it. */
export async function trickle(
  port: number,
  pieces: string[],
  everyMs: number,
): Promise<{ closedAfterMs: number; received: string; piecesSent: number }> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    const started = Date.now();
    let received = '';
    let sent = 0;
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    const timer = setInterval(() => {
      if (sent < pieces.length && !socket.destroyed) socket.write(pieces[sent++] as string);
      else if (sent >= pieces.length) socket.destroy();
    }, everyMs);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ closedAfterMs: Date.now() - started, received, piecesSent: sent });
    });
  });
}
