/**
 * The session's files on the application's signaling port: `/files` (GET the listing, `?format=zip` the whole
 * folder) and `/files/<percent-encoded name>` (GET, PUT, DELETE), called by the service only, which decided who
 * may and forwards the answers as they are (api/openapi.yaml `listFiles` ... `deleteFile`). Each call carries a
 * files ticket of this session (protocol/viewer-ticket.ts `signFilesTicket`); an application run alone, without a
 * secret, serves them to anyone, as it does viewers (CONTRACT section 14). Errors are `{"detail": "<sentence>"}`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ZIP_FORMAT } from '../../protocol/files.ts';
import { bearerToken, verifyFilesTicket } from '../../protocol/viewer-ticket.ts';
import { FilesError, type FilesFolder } from './folder.ts';

/** How long an unread upload is read away after its refusal, for the client to read the refusal, before the cut. */
const REFUSAL_LINGER_MS = 2_000;

/** What the signaling server hands over with a request to /files. */
export interface FilesRequest {
  req: IncomingMessage;
  res: ServerResponse;
  /** The signaling port's own headers for this request (CORS). */
  headers: Record<string, string>;
  /** Lifts the signaling port's bound on how long a request may take to arrive: an upload may take hours. */
  unbound: () => void;
}

export type FilesRoutes = (request: FilesRequest) => Promise<void>;

/** Whether the request's path is one of the files routes (the raw path: `..` must not be resolved away). */
export function isFilesPath(rawUrl: string | undefined): boolean {
  const pathname = (rawUrl ?? '').split('?')[0] as string;
  return pathname === '/files' || pathname.startsWith('/files/');
}

/**
 * `Content-Disposition: attachment` for `name` (RFC 6266): a plain `filename` for old clients, with what is not
 * printable ASCII replaced, and the exact name as `filename*` in UTF-8 (RFC 8187).
 */
export function attachment(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const exact = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

/** The routes over `folder` for session `sessionId`; `secret` null serves anyone (the application run alone). */
export function filesRoutes(folder: FilesFolder, sessionId: string, secret: Uint8Array | null): FilesRoutes {
  async function authorized(req: IncomingMessage): Promise<boolean> {
    if (!secret) return true;
    const ticket = bearerToken(req.headers.authorization);
    return ticket !== null && (await verifyFilesTicket(secret, sessionId, ticket));
  }

  return async ({ req, res, headers, unbound }) => {
    const send = (status: number, body: unknown, extra: Record<string, string> = {}) => {
      if (res.headersSent) return void res.destroy();
      res.writeHead(status, {
        ...headers,
        'Cache-Control': 'no-store',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...extra,
      });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    const refuse = (status: number, detail: string, extra: Record<string, string> = {}) => {
      // A body left unread (a refusal before the upload is read) is read away for a moment, then the connection
      // is cut: cut at once, the client (the service, forwarding) would meet a reset while still sending, before
      // it read the refusal, and could only say that the application did not answer.
      // Not `Connection: close`: with it Node's server closes the socket as soon as the answer is out, and the
      // client, still sending, meets EPIPE before it reads the answer.
      const unread = !req.readableEnded;
      send(status, { detail }, extra);
      if (unread) {
        req.resume();
        // Cut only if the rest never came: a client that sent it all may go on with this connection.
        res.once('finish', () =>
          setTimeout(() => void (req.readableEnded || req.destroy()), REFUSAL_LINGER_MS).unref(),
        );
      }
    };
    /** Streams `body` as the answer; a reader that goes away, or a source that fails, ends the connection. */
    const stream = async (body: Readable, extra: Record<string, string>) => {
      res.writeHead(200, { ...headers, 'Cache-Control': 'no-store', ...extra });
      await pipeline(body, res).catch(() => res.destroy());
    };

    async function route(): Promise<void> {
      const [pathname, query = ''] = (req.url ?? '').split('?') as [string, string?];
      const method = req.method ?? 'GET';
      if (pathname === '/files') {
        if (method !== 'GET') throw new FilesError(405, 'Use GET on /files.');
        const format = new URLSearchParams(query).get('format');
        if (format === null) return send(200, await folder.list());
        if (format !== ZIP_FORMAT)
          throw new FilesError(422, `The only format of the folder is “${ZIP_FORMAT}”.`);
        // A cut archive is not a valid one: the connection ends rather than the archive.
        return stream(await folder.zip(), {
          'Content-Type': 'application/zip',
          'Content-Disposition': attachment('Files.zip'),
        });
      }
      const name = decodedName(pathname.slice('/files/'.length));
      if (method === 'GET') return download(name);
      if (method === 'DELETE') {
        await folder.remove(name);
        return send(204, undefined);
      }
      if (method === 'PUT') {
        const declared = req.headers['content-length'];
        if (declared === undefined || !/^\d+$/.test(declared))
          throw new FilesError(411, 'An upload must say its length (Content-Length).');
        return send(201, await folder.upload(name, req, Number(declared), unbound));
      }
      throw new FilesError(405, 'Use GET, PUT or DELETE on a file.');
    }

    async function download(name: string): Promise<void> {
      const { handle, size } = await folder.download(name);
      const extra = {
        'Content-Type': 'application/octet-stream',
        'Content-Length': String(size),
        'Content-Disposition': attachment(name),
      };
      if (size === 0) {
        await handle.close();
        return send(200, undefined, extra);
      }
      // The length sent is the file's at the open: a file that grows meanwhile is cut there. The stream closes
      // the file when it ends or fails.
      const bytes = handle.createReadStream({ start: 0, end: size - 1 });
      await stream(bytes, extra);
      // One that shrank sent less than it said: the connection ends, so that the client sees it broken.
      if (bytes.bytesRead < size) res.destroy();
    }

    try {
      if (!(await authorized(req)))
        return refuse(401, 'A files ticket of this session is needed.', { 'WWW-Authenticate': 'Bearer' });
      await route();
    } catch (error) {
      if (error instanceof FilesError) return refuse(error.status, error.message);
      // A cut connection has nobody to answer.
      if (req.destroyed || res.destroyed) return;
      process.stderr.write(`[files] ${req.method} failed: ${(error as Error).message}\n`);
      refuse(500, 'The session folder could not do that; try again.');
    }
  };
}

/** The file name of a path's last part, percent-decoded; 422 when it is not valid percent-encoding. */
function decodedName(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new FilesError(422, 'The file name is not valid percent-encoding (UTF-8).');
  }
}
