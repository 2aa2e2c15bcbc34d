/**
 * A session's files through the service, against the whole app (auth hook, contract, error handler) on a real
 * port, an in-memory session list and a stand-in application: a small HTTP server on loopback that takes only
 * the service's files ticket and answers as the application does. What is allowed and refused, what is
 * forwarded and how (streamed, both ways), and what is recorded.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { AuditLog } from '../audit/audit-log.ts';
import { TokenStore } from '../auth/tokens.ts';
import { ViewerTickets } from '../auth/viewer-tickets.ts';
import { parseCatalog } from '../catalog/load-catalog.ts';
import type { SessionManager, SessionRecord } from '../sessions/types.ts';
import { signTicket, verifyFilesTicket } from '../../protocol/viewer-ticket.ts';
import { freePort } from '../../test-support/ports.ts';
import { bearer, standInCatalog, testConfig, TOKENS_YAML } from '../../test-support/test-support.ts';

const ID = '0b6f6c0e-3d7a-4c1e-9a8e-2f4f5d6c7b8a';
const MIB = 1024 * 1024;

/** One request as the stand-in application saw it. */
interface Seen {
  method: string;
  url: string;
  ticketValid: boolean;
  headers: IncomingMessage['headers'];
}

/** What the stand-in does with a request that carries a valid files ticket. */
type Behaviour = (req: IncomingMessage, res: ServerResponse) => void;

const tickets = ViewerTickets.ephemeral();
let application: Server;
let appPort: number;
let seen: Seen[];
let behaviour: Behaviour;

let sessions: Map<string, SessionRecord>;
let dataDir: string;
let audit: AuditLog;
let service: FastifyInstance;
let base: string;

function record(state: SessionRecord['state'], port = appPort): SessionRecord {
  return {
    id: ID,
    owner: 'alice',
    appId: 'a',
    appName: 'A',
    version: '1.0.0',
    profileId: 'p',
    arguments: {},
    state,
    message: state === 'failed' ? 'its program crashed' : 'Starting A 1.0.0',
    createdAt: new Date(0).toISOString(),
    ...(state === 'ready' ? { ports: { signaling: port, media: 27001 } } : {}),
  };
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

const listing = { limit_bytes: 512 * MIB, used_bytes: 3, items: [] };

beforeAll(async () => {
  application = createServer((req, res) => {
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    void verifyFilesTicket(tickets.secretOf(ID), ID, auth).then((ticketValid) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', ticketValid, headers: req.headers });
      if (!ticketValid) return json(res, 401, { detail: 'No.' });
      behaviour(req, res);
    });
  });
  await new Promise<void>((resolve) => application.listen(0, '127.0.0.1', resolve));
  appPort = (application.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => application.close(() => resolve())));

beforeEach(async () => {
  seen = [];
  behaviour = (_req, res) => json(res, 200, listing);
  sessions = new Map([[ID, record('ready')]]);
  dataDir = await mkdtemp(path.join(tmpdir(), 'streamgate-files-'));
  audit = new AuditLog(dataDir);
  const manager = {
    get: (id: string) => sessions.get(id),
    onEnded: () => undefined,
    checkTicket: async (id: string, ticket: string) =>
      sessions.get(id)?.state === 'failed' ? null : tickets.verify(id, ticket),
    filesTicket: async (id: string) => (sessions.has(id) ? tickets.filesTicket(id) : undefined),
  } as unknown as SessionManager;
  service = await buildApp(testConfig({ dataDir, staticDir: path.join(dataDir, 'no-portal') }), {
    catalog: parseCatalog(standInCatalog(), 'catalog.yaml'),
    manager,
    tokens: TokenStore.parse(TOKENS_YAML, 'tokens.yaml'),
    audit,
  });
  await service.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(service.server.address() as { port: number }).port}`;
});
afterEach(async () => {
  await service.close();
  await audit.close();
  await rm(dataDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** Whether the answer arrived whole (false: the connection ended in the middle of it). */
  complete: boolean;
}

/** One call to the service; `body` is sent whole with its length unless `send` writes it. */
function call(
  method: string,
  url: string,
  headers: Record<string, string> = {},
  body?: Buffer | ((req: ReturnType<typeof request>) => void),
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${url}`, { method, headers, agent: false });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      const done = () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          complete: res.complete,
        });
      res.on('end', done);
      res.on('error', done);
    });
    req.on('error', reject);
    if (typeof body === 'function') body(req);
    else req.end(body);
  });
}

const files = (suffix = '') => `/api/stream/${ID}/files${suffix}`;
const detail = (answer: Answer) => (JSON.parse(answer.body.toString()) as { detail: unknown }).detail;
const ticketOf = async (scope: 'control' | 'watch', secret = tickets.secretOf(ID)) =>
  (await signTicket(secret, ID, scope, 60, Date.now(), Date.now(), 'alice')).ticket;
const withTicket = (ticket: string) => ({ authorization: `Bearer ${ticket}` });

async function auditLines(action?: string) {
  await audit.flush();
  return (await audit.read({ limit: 100, ...(action ? { action } : {}) })).items;
}

describe('who may reach a session’s files', () => {
  it('lets the owner, an admin and the holder of a control ticket in, each call with a fresh files ticket', async () => {
    for (const headers of [bearer('alice'), bearer('ada'), withTicket(await ticketOf('control'))]) {
      const answer = await call('GET', files(), headers);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body.toString())).toEqual(listing);
    }
    expect(seen.map((s) => [s.method, s.url, s.ticketValid])).toEqual([
      ['GET', '/files', true],
      ['GET', '/files', true],
      ['GET', '/files', true],
    ]);
    // The caller's own credential never reaches the application.
    expect(new Set(seen.map((s) => s.headers.authorization)).size).toBe(3);
  });

  it('refuses another user, a viewer, a watch ticket, a forged ticket and no token, and sends nothing on', async () => {
    const bob = await call('GET', files(), bearer('bob'));
    expect([bob.status, detail(bob)]).toEqual([403, 'This session belongs to someone else.']);
    const vera = await call('GET', files(), bearer('vera'));
    expect(vera.status).toBe(403);
    expect(detail(vera)).toMatch(/may read the catalog but not use sessions/);
    const watch = await call('GET', files('/a.txt'), withTicket(await ticketOf('watch')));
    expect([watch.status, detail(watch)]).toEqual([403, 'A watch link cannot reach the session’s files.']);
    const forged = await call(
      'DELETE',
      files('/a.txt'),
      withTicket(await ticketOf('control', new Uint8Array(32))),
    );
    expect([forged.status, detail(forged)]).toEqual([403, 'Not authenticated']);
    const nobody = await call('GET', files());
    expect([nobody.status, detail(nobody)]).toEqual([403, 'Not authenticated']);
    expect(seen).toEqual([]);
    // A ticket is no failed sign-in: nothing of these is in the audit log.
    expect(await auditLines('sign-in-failed')).toEqual([]);
    // Elsewhere a ticket is a credential like any other, refused and recorded as one.
    const elsewhere = await call('GET', `/api/stream/${ID}`, withTicket(await ticketOf('control')));
    expect([elsewhere.status, detail(elsewhere)]).toEqual([403, 'Not authenticated']);
    expect(await auditLines('sign-in-failed')).toHaveLength(1);
  });

  it('answers 404, 410 and 409 for a session that is unknown, failed or not ready, and 502 when its application is silent', async () => {
    const other = await call('GET', `/api/stream/${crypto.randomUUID()}/files`, bearer('alice'));
    expect(other.status).toBe(404);
    sessions.set(ID, record('failed'));
    const failed = await call('GET', files(), bearer('alice'));
    expect([failed.status, detail(failed)]).toEqual([410, 'The session failed: its program crashed']);
    const failedTicket = await call('GET', files(), withTicket(await ticketOf('control')));
    expect(failedTicket.status).toBe(410);
    sessions.set(ID, record('pending'));
    const pending = await call('PUT', files('/a.txt'), bearer('alice'), Buffer.from('abc'));
    expect(pending.status).toBe(409);
    expect(detail(pending)).toMatch(/still starting/);
    sessions.set(ID, record('ready', await freePort()));
    const silent = await call('GET', files(), bearer('alice'));
    expect(silent.status).toBe(502);
    expect(detail(silent)).toMatch(/did not answer; it may be restarting/);
    for (const url of ['/api/stream/not-an-id/files', '/api/stream/not-an-id/files/a.txt']) {
      const malformed = await call('GET', url, bearer('alice'));
      expect([malformed.status, detail(malformed)]).toEqual([
        422,
        [expect.objectContaining({ loc: ['path', 'session_id'], type: 'string_pattern_mismatch' })],
      ]);
    }
    expect(seen).toEqual([]);
  });
});

describe('forwarding', () => {
  it('passes names percent-encoded and the zip query on, and refuses a name the folder cannot hold in words', async () => {
    behaviour = (_req, res) => {
      res.writeHead(204);
      res.end();
    };
    expect((await call('DELETE', files('/r%C3%A9sum%C3%A9%20%231.pdf'), bearer('alice'))).status).toBe(204);
    expect((await call('GET', files('?format=zip'), bearer('alice'))).status).toBe(204);
    expect(seen.map((s) => s.url)).toEqual(['/files/r%C3%A9sum%C3%A9%20%231.pdf', '/files?format=zip']);
    const dots = await call('GET', files('/..'), bearer('alice'));
    expect(dots.status).not.toBe(204);
    const slash = await call('GET', files('/a%2Fb'), bearer('alice'));
    expect([slash.status, detail(slash)]).toEqual([
      422,
      'A file name cannot hold “/” or “\\”: files go straight into the folder.',
    ]);
    const long = await call('PUT', files(`/${'x'.repeat(300)}`), bearer('alice'), Buffer.from('a'));
    expect([long.status, detail(long)]).toEqual([422, 'A file name can be at most 255 bytes long.']);
    // No HEAD: it would fetch a whole file to drop it.
    const head = await call('HEAD', files('/a.txt'), bearer('alice'));
    expect([head.status, head.headers.allow]).toEqual([405, 'DELETE, GET, PUT']);
    const badFormat = await call('GET', files('?format=tar'), bearer('alice'));

    expect(badFormat.status).toBe(422);
    expect(seen).toHaveLength(2);
  });

  it('keeps a download’s status, type, length and disposition, and its bytes', async () => {
    const bytes = Buffer.from('solid cube\nendsolid\n');
    behaviour = (_req, res) => {
      res.writeHead(200, {
        'content-type': 'model/stl',
        'content-length': bytes.length,
        'content-disposition': "attachment; filename*=UTF-8''cube.stl",
        'x-internal': 'kept inside',
      });
      res.end(bytes);
    };
    const answer = await call('GET', files('/cube.stl'), bearer('alice'));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('model/stl');
    expect(answer.headers['content-length']).toBe(String(bytes.length));
    expect(answer.headers['content-disposition']).toBe("attachment; filename*=UTF-8''cube.stl");
    expect(answer.headers['x-internal']).toBeUndefined();
    expect(answer.body.equals(bytes)).toBe(true);
  });

  it('ends the client’s answer when the application stops in the middle of it', async () => {
    behaviour = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/zip', 'content-length': 1000 });
      res.write(Buffer.alloc(100), () => res.socket?.destroy());
    };
    const answer = await call('GET', files('?format=zip'), bearer('alice'));
    expect(answer.status).toBe(200);
    expect(answer.complete).toBe(false);
    expect(answer.body.length).toBeLessThan(1000);
  });

  it('answers 502 when the application stops after its headers, before any of its body', async () => {
    behaviour = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/zip', 'content-length': 1000 });
      res.flushHeaders();
      setImmediate(() => res.socket?.destroy());
    };
    const answer = await call('GET', files('?format=zip'), bearer('alice'));
    expect([answer.status, detail(answer)]).toEqual([
      502,
      'The session’s application did not answer; it may be restarting. Try again in a moment.',
    ]);
  });

  it('passes the application’s refusals on with their words: 413, 507, 422', async () => {
    for (const [status, words] of [
      [413, 'The file is larger than the whole folder (512 MB).'],
      [507, 'The file does not fit: 3 MB of the folder is left.'],
      [422, '“.streamgate-partial-x” is not a file name.'],
    ] as const) {
      behaviour = (_req, res) => json(res, status, { detail: words });
      const answer = await call('PUT', files('/big.bin'), bearer('alice'), Buffer.alloc(4096));
      expect([answer.status, detail(answer)]).toEqual([status, words]);
    }
  });

  it('gives the client an early refusal of the application whole, before the upload is all sent', async () => {
    // The application refuses as soon as it has the headers, as Node's server lets it (it reads the rest away).
    behaviour = (_req, res) => json(res, 413, { detail: 'The file is larger than the whole folder (1 MB).' });
    const answer = await call('PUT', files('/big.bin'), bearer('alice'), Buffer.alloc(8 * MIB));
    expect([answer.status, detail(answer)]).toEqual([
      413,
      'The file is larger than the whole folder (1 MB).',
    ]);
  });

  it('needs the upload’s length (411) and sends nothing without it', async () => {
    const answer = await call(
      'PUT',
      files('/a.bin'),
      { ...bearer('alice'), 'transfer-encoding': 'chunked' },
      (req) => req.end('some bytes'),
    );
    expect([answer.status, detail(answer)]).toEqual([
      411,
      'Say how large the file is (Content-Length) when you upload it.',
    ]);
    expect(seen).toEqual([]);
  });

  it('streams an upload: the application has its first piece before the client sends the second', async () => {
    const pieces: number[] = [];
    let gotPiece: () => void = () => undefined;
    behaviour = (req, res) => {
      req.on('data', (chunk: Buffer) => {
        pieces.push(chunk.length);
        gotPiece();
      });
      req.on('end', () =>
        json(res, 201, { name: 'a.bin', size: 2 * 65536, modified: new Date(0).toISOString(), kind: 'file' }),
      );
    };
    const received = (bytes: number) =>
      new Promise<void>((resolve) => {
        gotPiece = () => pieces.reduce((a, b) => a + b, 0) >= bytes && resolve();
        gotPiece();
      });
    const answer = await call(
      'PUT',
      files('/a.bin'),
      { ...bearer('alice'), 'content-type': 'application/json', 'content-length': String(2 * 65536) },
      (req) => {
        req.write(Buffer.alloc(65536, 1));
        // The second piece leaves only once the application holds the first: nothing waits for the whole body.
        void received(65536).then(() => req.end(Buffer.alloc(65536, 2)));
      },
    );
    expect(answer.status).toBe(201);
    expect(pieces.reduce((a, b) => a + b, 0)).toBe(2 * 65536);
    // The file's own type went on as it was, never parsed as a request.
    expect(seen[0]?.headers['content-type']).toBe('application/json');
    expect(seen[0]?.headers['content-length']).toBe(String(2 * 65536));
  });

  it('streams 100 MB without the service’s memory growing with it', async () => {
    const size = 100 * MIB;
    let peak = 0;
    let got = 0;
    const start = process.memoryUsage();
    const held = () => {
      const now = process.memoryUsage();
      return now.arrayBuffers - start.arrayBuffers + (now.heapUsed - start.heapUsed);
    };
    behaviour = (req, res) => {
      req.on('data', (chunk: Buffer) => {
        got += chunk.length;
        peak = Math.max(peak, held());
      });
      req.on('end', () =>
        json(res, 201, { name: 'big.bin', size, modified: new Date(0).toISOString(), kind: 'file' }),
      );
    };
    const piece = Buffer.alloc(MIB, 7);
    const answer = await call(
      'PUT',
      files('/big.bin'),
      { ...bearer('alice'), 'content-length': String(size) },
      (req) => {
        let sent = 0;
        const more = () => {
          while (sent < size) {
            sent += piece.length;
            if (!req.write(piece)) return void req.once('drain', more);
          }
          req.end();
        };
        more();
      },
    );
    expect(answer.status).toBe(201);
    expect(got).toBe(size);
    // Held whole, the body alone would be 100 MB more; streamed, a few buffers of it are in flight at once, and
    // what the garbage collector has not taken yet (about 25 MB at most in runs on a 2-core machine).
    expect(peak).toBeLessThan(40 * MIB);
  });

  it('aborts the call to the application when the client goes away mid-upload', async () => {
    let closed: (complete: boolean) => void = () => undefined;
    const sawEnd = new Promise<boolean>((resolve) => (closed = resolve));
    let firstPiece: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (firstPiece = resolve));
    behaviour = (req) => {
      req.once('data', () => firstPiece());
      req.on('close', () => closed(req.complete));
    };
    const client = request(`${base}${files('/a.bin')}`, {
      method: 'PUT',
      headers: { ...bearer('alice'), 'content-length': String(10 * MIB) },
      agent: false,
    });
    client.on('error', () => undefined);
    client.write(Buffer.alloc(MIB));
    await started;
    client.destroy();
    expect(await sawEnd).toBe(false);
    expect(await auditLines('file-upload')).toEqual([]);
  });
});

describe('the audit log', () => {
  it('records uploads with their size, downloads (a file, or the zip) and deletions, by whom and how', async () => {
    behaviour = (req, res) => {
      if (req.method === 'PUT') {
        req.resume();
        req.on('end', () =>
          json(res, 201, { name: 'a.txt', size: 3, modified: new Date(0).toISOString(), kind: 'file' }),
        );
      } else if (req.method === 'DELETE') {
        res.writeHead(204);
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': 3 });
        res.end('abc');
      }
    };
    expect((await call('PUT', files('/a.txt'), bearer('alice'), Buffer.from('abc'))).status).toBe(201);
    expect((await call('GET', files('/a.txt'), bearer('ada'))).status).toBe(200);
    expect((await call('GET', files('?format=zip'), withTicket(await ticketOf('control')))).status).toBe(200);
    expect((await call('DELETE', files('/a.txt'), bearer('alice'))).status).toBe(204);
    // A listing is no event; a refusal of the application is none either.
    behaviour = (_req, res) => json(res, 200, listing);
    await call('GET', files(), bearer('alice'));
    behaviour = (_req, res) => json(res, 404, { detail: 'No file has this name.' });
    await call('DELETE', files('/b.txt'), bearer('alice'));
    const lines = (await auditLines()).reverse();
    expect(lines.map(({ user, action, session, detail }) => ({ user, action, session, detail }))).toEqual([
      { user: 'alice', action: 'file-upload', session: ID, detail: { name: 'a.txt', bytes: 3 } },
      {
        user: 'ada',
        action: 'file-download',
        session: ID,
        detail: { owner: 'alice', as_admin: true, name: 'a.txt' },
      },
      { user: 'alice', action: 'file-download', session: ID, detail: { name: 'zip', via: 'control ticket' } },
      { user: 'alice', action: 'file-delete', session: ID, detail: { name: 'a.txt' } },
    ]);
  });
});
