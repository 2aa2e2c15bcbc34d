/**
 * The session's files through a display host's signaling port, as the service reaches them: a real host (Xvfb,
 * its program in its sandbox with the folder at ~/Files, the stream server), files tickets, and raw HTTP for the
 * uploads that are cut or slow.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBufferPromise } from 'yauzl';
import { FILES_CHANGED_EVENT, PARTIAL_PREFIX, type FilesListing } from '../../protocol/files.ts';
import type { AppMessage } from '../../protocol/data-channels.ts';
import { signFilesTicket, signTicket } from '../../protocol/viewer-ticket.ts';
import { freePort, freeUdpPort } from '../../test-support/ports.ts';
import { until } from '../../test-support/until.ts';
import { SIGNALING_TIMEOUTS } from '../transport/signaling.ts';
import { DISPLAY_PARTS, startDisplayHost, type DisplayHost } from '../display/display-host.ts';
import { parseLaunch, sandboxSettings } from '../../protocol/launch.ts';

const secret = new Uint8Array(randomBytes(32));
const sessionId = randomUUID();
/** The program: waits for `ping` in its ~/Files, copies it to `pong`, and stays. */
const PROGRAM = [
  'sh',
  '-c',
  'printf made-by-program > "$HOME/Files/from-program.txt"; ' +
    'while [ ! -e "$HOME/Files/ping" ]; do sleep 0.1; done; cp "$HOME/Files/ping" "$HOME/Files/pong"; exec sleep 600',
];

describe("a display host's files on its signaling port", () => {
  let host: DisplayHost;
  let base: string;
  let port: number;
  const told: [AppMessage, string | undefined][] = [];
  let filesDir = '';
  const requestMs = SIGNALING_TIMEOUTS.requestMs;

  const auth = async () => ({ Authorization: `Bearer ${await signFilesTicket(secret, sessionId)}` });
  const listing = async () =>
    (await (await fetch(`${base}/files`, { headers: await auth() })).json()) as FilesListing;

  beforeAll(async () => {
    // A request must arrive within 1.5 s here, so that an upload can be seen to outlast the bound.
    SIGNALING_TIMEOUTS.requestMs = 1_500;
    const signalingPort = await freePort();
    const options = parseLaunch(
      [
        '--signaling-port',
        String(signalingPort),
        '--media-port',
        String(await freeUdpPort()),
        '--files-mb',
        '1',
      ],
      {},
    );
    Object.assign(options, { width: 320, height: 200, maxWidth: 320, maxHeight: 200, audio: false });
    host = await startDisplayHost(
      { ...options, sessionId, viewerSecret: secret },
      { command: PROGRAM, env: {}, opengl: false },
      () => undefined,
      sandboxSettings(undefined),
      {
        ...DISPLAY_PARTS,
        async openFiles(...args) {
          const files = await DISPLAY_PARTS.openFiles(...args);
          filesDir = files.folder.dir;
          return files;
        },
        openStreamServer(...args) {
          const stream = DISPLAY_PARTS.openStreamServer(...args);
          const broadcast = stream.broadcast.bind(stream);
          stream.broadcast = (message, to) => (told.push([message, to]), broadcast(message, to));
          return stream;
        },
      },
    );
    port = host.signalingPort;
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    SIGNALING_TIMEOUTS.requestMs = requestMs;
    await host?.close();
  });

  it('answers 401 with WWW-Authenticate: Bearer without a ticket, and with a viewer ticket', async () => {
    const viewer = await signTicket(secret, sessionId, 'control', 60);
    for (const headers of [{}, { Authorization: `Bearer ${viewer.ticket}` }] as Record<string, string>[]) {
      const res = await fetch(`${base}/files`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(await res.json()).toEqual({ detail: 'A files ticket of this session is needed.' });
    }
    const put = await fetch(`${base}/files/x`, { method: 'PUT', body: 'x' });
    expect(put.status).toBe(401);
  });

  it('lists what the program wrote in its ~/Files, and the program reads what is uploaded', async () => {
    await until('the program to write', async () =>
      (await listing()).items.some((item) => item.name === 'from-program.txt'),
    );
    const res = await fetch(`${base}/files/ping`, { method: 'PUT', headers: await auth(), body: 'ping!' });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ name: 'ping', size: 5, kind: 'file' });
    await until('the program to copy it', async () => (await listing()).items.some((i) => i.name === 'pong'));
    const pong = await fetch(`${base}/files/pong`, { headers: await auth() });
    expect(pong.status).toBe(200);
    expect(pong.headers.get('content-length')).toBe('5');
    expect(pong.headers.get('content-disposition')).toBe(
      `attachment; filename="pong"; filename*=UTF-8''pong`,
    );
    expect(await pong.text()).toBe('ping!');
    // Its changes went to the owners connected.
    const changes = () => told.filter(([message]) => message.event_type === FILES_CHANGED_EVENT);
    await until('a change to be told', () => changes().length > 0);
    expect(changes().at(-1)).toEqual([
      { event_type: FILES_CHANGED_EVENT, payload: { used_bytes: expect.any(Number) } },
      'owners',
    ]);
  });

  it('zips the folder, downloads by a percent-encoded name, and removes a file', async () => {
    const name = 'résumé 1.txt';
    const put = await fetch(`${base}/files/${encodeURIComponent(name)}`, {
      method: 'PUT',
      headers: await auth(),
      body: 'CV',
    });
    expect(put.status).toBe(201);
    const zip = await fetch(`${base}/files?format=zip`, { headers: await auth() });
    expect(zip.headers.get('content-type')).toBe('application/zip');
    const archive = await fromBufferPromise(Buffer.from(await zip.arrayBuffer()));
    const names: string[] = [];
    for await (const entry of archive.eachEntry()) names.push(entry.fileName);
    expect(names).toEqual(expect.arrayContaining(['from-program.txt', name]));
    const del = await fetch(`${base}/files/${encodeURIComponent(name)}`, {
      method: 'DELETE',
      headers: await auth(),
    });
    expect(del.status).toBe(204);
    const again = await fetch(`${base}/files/${encodeURIComponent(name)}`, {
      method: 'DELETE',
      headers: await auth(),
    });
    expect(again.status).toBe(404);
    expect(((await again.json()) as { detail: string }).detail).toMatch(/There is no file named/);
  });

  it('refuses an upload without a length (411), larger than the folder (413), and a bad name (422), in JSON', async () => {
    const headers = await auth();
    const chunked = await rawPut(port, 'nolength', headers, null, [Buffer.from('abc')]);
    expect(chunked.status).toBe(411);
    const big = await rawPut(port, 'big', headers, 2 * 1024 * 1024, [Buffer.alloc(64 * 1024)]);
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body)).toEqual({ detail: expect.stringMatching(/larger than the whole folder/) });
    // Sent as they are: a client's URL parser would resolve `..` away before it left.
    for (const name of ['%2E%2E', 'a%2Fb', '%ZZ']) {
      const bad = await rawRequest(port, 'GET', `/files/${name}`, headers, null, []);
      expect(bad.status).toBe(422);
      expect(JSON.parse(bad.body)).toEqual({ detail: expect.any(String) });
    }
  });

  it('keeps nothing of an upload whose connection is cut half way', async () => {
    const before = readdirSync(filesDir).sort();
    // Cut once half of it is on disk under its hidden name.
    const halfWritten = () =>
      until('half of it to be written', () =>
        readdirSync(filesDir).some((n) => n.startsWith(PARTIAL_PREFIX)),
      );
    const cut = await rawPut(port, 'cut', await auth(), 400_000, [Buffer.alloc(200_000)], {
      cutWhen: halfWritten,
    });
    expect(cut.status).toBe(0);
    // Nothing hidden is left either: the folder holds what it held.
    await until(
      'the partial file to be removed',
      () => readdirSync(filesDir).sort().join() === before.join(),
    );
    expect(before.some((name) => name.startsWith(PARTIAL_PREFIX) || name === 'cut')).toBe(false);
  });

  it('lets an upload that keeps sending outlast the bound on a request, which still cuts a slow offer', async () => {
    const pieces = Array.from({ length: 12 }, () => Buffer.alloc(1000, 7));
    const slow = await rawPut(port, 'slow', await auth(), 12_000, pieces, { everyMs: 250 });
    expect(slow.status).toBe(201);
    const viewer = await signTicket(secret, sessionId, 'control', 60);
    const offer = await rawRequest(
      port,
      'POST',
      '/whep',
      { 'Content-Type': 'application/sdp', Authorization: `Bearer ${viewer.ticket}` },
      500,
      [Buffer.from('v=0')],
      { everyMs: 3_000 },
    );
    expect(offer.status).toBe(408);
  });
});

describe('the folder of a display host that ends', () => {
  it('is unmounted and removed with the host, whatever the program had made in it', async () => {
    const options = parseLaunch(
      ['--signaling-port', String(await freePort()), '--media-port', String(await freeUdpPort())],
      {},
    );
    Object.assign(options, { width: 320, height: 200, maxWidth: 320, maxHeight: 200, audio: false });
    let dir = '';
    const host = await startDisplayHost(
      options,
      // A program that fills its folder a little and crashes.
      {
        command: ['sh', '-c', 'mkdir "$HOME/Files/d" && printf x > "$HOME/Files/d/f"; exit 3'],
        env: {},
        opengl: false,
      },
      () => undefined,
      sandboxSettings(undefined),
      {
        ...DISPLAY_PARTS,
        async openFiles(...args) {
          const files = await DISPLAY_PARTS.openFiles(...args);
          dir = files.folder.dir;
          return files;
        },
      },
    );
    expect(readFileSync('/proc/self/mounts', 'utf8')).toContain(` ${dir} tmpfs `);
    expect((await host.done).code).toBe(1);
    await host.close();
    expect(readFileSync('/proc/self/mounts', 'utf8')).not.toContain(` ${dir} `);
    expect(existsSync(dir)).toBe(false);
  });
});

interface RawAnswer {
  /** 0 when the connection ended without an answer. */
  status: number;
  body: string;
}

/** PUTs `pieces` to /files/`name`, `everyMs` apart, announcing `length` (null: chunked, no length). */
function rawPut(
  port: number,
  name: string,
  headers: Record<string, string>,
  length: number | null,
  pieces: Buffer[],
  how: { everyMs?: number; cutWhen?: () => Promise<unknown> } = {},
): Promise<RawAnswer> {
  return rawRequest(port, 'PUT', `/files/${encodeURIComponent(name)}`, headers, length, pieces, how);
}

function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  length: number | null,
  pieces: Buffer[],
  how: { everyMs?: number; cutWhen?: () => Promise<unknown> } = {},
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const req = request({
      host: '127.0.0.1',
      port,
      method,
      path,
      headers: { ...headers, ...(length === null ? {} : { 'Content-Length': String(length) }) },
      // A connection each, as the service makes its calls: one whose upload was refused half sent is not reused.
      agent: false,
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', () => resolve({ status: 0, body: '' }));
    let i = 0;
    const next = () => {
      if (req.destroyed) return;
      const piece = pieces[i++];
      if (piece) {
        req.write(piece);
        return void setTimeout(next, how.everyMs ?? 0);
      }
      if (how.cutWhen) return void how.cutWhen().then(() => req.destroy());
      if (length === null || how.everyMs === undefined || pieces.reduce((n, p) => n + p.length, 0) >= length)
        req.end();
    };
    next();
  });
}
