/**
 * A session's files (`{base}/stream/{id}/files...`, protocol/files.ts): the service decides who may touch them
 * and forwards each call to the session's application, wherever it runs, on its signaling port under the same
 * path and query, with a files ticket of the service's in `Authorization`. Bodies are streamed both ways, never
 * held: an upload goes to the application as it arrives, and its answer (a listing, a file, a zip, a refusal in
 * its own words) comes back as it is written. A client that goes away aborts the call; an application that stops
 * answering ends the client's answer.
 *
 * Who may: the session's owner or an admin (a token, as for every session endpoint), or the holder of a control
 * ticket of this session, the same ticket that connected their viewer (checked, not used up). A watch ticket
 * never: a watch link is anyone's.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { NO_AUDIT, type Audit, type AuditAction, type AuditDetail } from '../audit/audit.ts';
import { DomainError, forbidden, NOT_AUTHENTICATED, notFound, ValidationFailure } from '../errors.ts';
import { contractRoute } from '../http/contract.ts';
import { errorHandler } from '../http/error-handler.ts';
import type { SessionManager, SessionRecord } from '../sessions/types.ts';
import { fileNameProblem, MAX_FILES_MB, ZIP_FORMAT } from '../../protocol/files.ts';
import { placement, signalingUrl, type AppPlace } from './app-place.ts';
import { mayUseSessions, sessionAccess } from './session-access.ts';
import { sessionEvent } from './session-audit.ts';

/** No upload can be larger than the largest folder a profile may give a session. */
export const MAX_UPLOAD_BYTES = MAX_FILES_MB * 1024 * 1024;
/** An application silent this long in the middle of a call (no byte either way) is given up on. */
export const APP_IDLE_MS = 30_000;
/** The application's answer headers a client gets; the rest (its CORS, its own caching) are its own. */
const PASSED_HEADERS = ['content-type', 'content-length', 'content-disposition'] as const;

const UNREACHABLE = 'The session’s application did not answer; it may be restarting. Try again in a moment.';
const WATCH_REFUSED = 'A watch link cannot reach the session’s files.';

export interface FileRoutesOptions {
  manager: SessionManager;
  /** STREAMGATE_PUBLIC_HOST: where a local application listens when its runner names no host. */
  publicHost: string;
  /** Where uploads, downloads and deletions are recorded (CONTRACT §22); absent: nowhere. */
  audit?: Audit;
  /** How long the application may stay silent mid-call; APP_IDLE_MS by default. */
  appIdleMs?: number;
}

/** Who is acting, once allowed: the audit's user and how they were let in. */
interface Caller {
  record: SessionRecord;
  place: AppPlace;
  /** The person the audit names: the caller of a token, or the name in a control ticket. */
  user: string;
  byTicket: boolean;
}

/** A call the application is to answer: method, path and query on its signaling port, and what to send. */
interface Call {
  method: 'GET' | 'PUT' | 'DELETE';
  path: string;
  /** The upload, streamed; absent: no body. */
  body?: { stream: IncomingMessage; length: number; type: string | undefined };
}

const filesPath = (name?: string) => (name === undefined ? '/files' : `/files/${encodeURIComponent(name)}`);

export const fileRoutes: FastifyPluginAsync<FileRoutesOptions> = async (app, options) => {
  const { manager, publicHost, audit = NO_AUDIT, appIdleMs = APP_IDLE_MS } = options;
  const access = sessionAccess(manager);

  // Any type of file is a body to pass on as it arrives: the raw request goes to the handler unread, JSON and
  // text included (an uploaded .json file is a file, not a request to parse).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { bodyLimit: MAX_UPLOAD_BYTES }, (_request, _payload, done) => done(null));

  /** Requests whose answer is the application's, streamed: its headers are set on the reply. */
  const answering = new WeakSet<FastifyRequest>();
  // An application that fails after its headers but before any byte of its body has sent the client nothing
  // yet: it gets the 502 of an application that did not answer, without the headers of the answer that failed.
  app.setErrorHandler<FastifyError>((error, request, reply) => {
    if (!answering.has(request)) return errorHandler(error, request, reply);
    for (const name of PASSED_HEADERS) reply.removeHeader(name);
    return reply.code(502).send({ detail: UNREACHABLE });
  });

  /** The caller and the session's application, or the refusal thrown: 403, 404, 410, 409. */
  async function allowed(request: FastifyRequest<{ Params: { session_id: string } }>): Promise<Caller> {
    const invalid = request.validationError;
    const id = request.params.session_id;
    // A malformed id is a 422 at the path, as everywhere; a name the contract refuses is checked below, in words.
    if (invalid instanceof ValidationFailure && invalid.issues.some((issue) => issue.loc[1] === 'session_id'))
      throw invalid;
    const who = await callerOf(request, id);
    const place = placement(who.record, publicHost);
    if (!place) {
      throw new DomainError(
        409,
        'The session is still starting; its files can be reached once it is ready.',
        { 'retry-after': '2' },
      );
    }
    return { ...who, place };
  }

  /** Who calls, by a token (as every session endpoint decides) or by a control ticket of this session. */
  async function callerOf(request: FastifyRequest, id: string) {
    const ticket = request.viewerTicket;
    if (ticket === null) {
      mayUseSessions(request);
      return { record: access.live(request, id), user: request.principal.user, byTicket: false };
    }
    const record = manager.get(id);
    if (!record) throw notFound('No session has this id; it may have ended.');
    if (record.state === 'failed') throw new DomainError(410, `The session failed: ${record.message}`);
    const grant = await manager.checkTicket(id, ticket);
    if (!grant) throw new DomainError(403, NOT_AUTHENTICATED);
    if (grant.scope !== 'control') throw forbidden(WATCH_REFUSED);
    const user = grant.name ?? 'owner (control ticket)';
    request.principal = { user, roles: [] };
    return { record, user, byTicket: true };
  }

  /** A name the folder cannot hold is refused here, in the application's words, before anything is sent. */
  function checkName(name: string): void {
    const problem = fileNameProblem(name);
    if (problem) throw new DomainError(422, problem);
  }

  /** The audit line of a call the application carried out. */
  function record(caller: Caller, action: AuditAction, request: FastifyRequest, detail: AuditDetail): void {
    const event = sessionEvent(request, action, caller.record, {
      ...detail,
      ...(caller.byTicket ? { via: 'control ticket' } : {}),
    });
    audit.record({ ...event, user: caller.user });
  }

  /**
   * Makes the call and streams the application's answer to the client; resolves with its status once the answer
   * has begun. A 502 when the application cannot be reached or answers nothing.
   */
  async function forward(caller: Caller, call: Call, request: FastifyRequest, reply: FastifyReply) {
    const ticket = await manager.filesTicket(caller.record.id);
    if (ticket === undefined) throw notFound('No session has this id; it may have ended.');
    // A client that went away while its call was being decided has nothing left to send or to read.
    const gone = () => request.raw.socket.destroyed;
    if (gone()) return null;
    const url = new URL(signalingUrl(caller.place, call.path));
    // Kept alive in words only (each call has a connection of its own, closed once answered): an application that
    // answers an upload before reading all of it (a refusal) then reads the rest away, as Node's server does,
    // rather than closing a connection with unread bytes, which resets it before its answer is read.
    const headers: Record<string, string | number> = {
      authorization: `Bearer ${ticket}`,
      connection: 'keep-alive',
    };
    if (call.body) {
      headers['content-length'] = call.body.length;
      if (call.body.type) headers['content-type'] = call.body.type;
    }
    const outgoing = httpRequest({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port,
      path: `${url.pathname}${url.search}`,
      method: call.method,
      headers,
      agent: false,
    });
    // Silence either way (an application that hangs, or a client that stopped sending) ends the call.
    outgoing.setTimeout(appIdleMs, () => outgoing.destroy());
    // A client that goes away, before or while the answer streams, takes the call with it.
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) outgoing.destroy();
    });
    const body = call.body;
    if (body) {
      body.stream.once('close', () => {
        if (!body.stream.complete) outgoing.destroy();
      });
      body.stream.pipe(outgoing);
    } else {
      outgoing.end();
    }
    const answer = await new Promise<IncomingMessage | null>((resolve) => {
      outgoing.once('response', resolve);
      // Before an answer, any failure is the application's not answering; after one, the answer's own end
      // (a write to an application that answered early and closed is no failure of its answer).
      outgoing.once('error', () => resolve(null));
    });
    if (!answer) {
      body?.stream.unpipe(outgoing);
      if (gone()) return null;
      throw new DomainError(502, UNREACHABLE);
    }
    // An application that answered before taking the whole upload (a refusal) is sent no more of it, and the
    // connection ends with the answer.
    outgoing.on('error', () => body?.stream.unpipe(outgoing));
    answer.once('end', () => {
      body?.stream.unpipe(outgoing);
      outgoing.destroy();
    });
    const status = answer.statusCode ?? 502;
    reply.code(status).header('cache-control', 'no-store');
    for (const name of PASSED_HEADERS) {
      const value = answer.headers[name];
      if (value !== undefined) reply.header(name, value);
    }
    answering.add(request);
    void reply.send(answer);
    return status;
  }

  contractRoute(app, 'listFiles', {
    attachValidation: true,
    // Fastify's HEAD would fetch the whole file or zip from the application only to drop it.
    exposeHeadRoute: false,
    handler: async (request, reply) => {
      const caller = await allowed(request);
      // The query names only `format=zip`, which the contract checks.
      if (request.validationError) throw request.validationError;
      const zip = request.query.format === ZIP_FORMAT;
      const status = await forward(
        caller,
        { method: 'GET', path: zip ? `/files?format=${ZIP_FORMAT}` : '/files' },
        request,
        reply,
      );
      if (zip && status === 200) record(caller, 'file-download', request, { name: ZIP_FORMAT });
      return reply;
    },
  });

  contractRoute(app, 'downloadFile', {
    attachValidation: true,
    // Fastify's HEAD would fetch the whole file or zip from the application only to drop it.
    exposeHeadRoute: false,
    handler: async (request, reply) => {
      const caller = await allowed(request);
      const { name } = request.params;
      checkName(name);
      const status = await forward(caller, { method: 'GET', path: filesPath(name) }, request, reply);
      if (status === 200) record(caller, 'file-download', request, { name });
      return reply;
    },
  });

  contractRoute(app, 'uploadFile', {
    attachValidation: true,
    bodyLimit: MAX_UPLOAD_BYTES,
    handler: async (request, reply) => {
      const caller = await allowed(request);
      const { name } = request.params;
      checkName(name);
      const declared = request.headers['content-length'];
      if (declared === undefined || !/^\d+$/.test(declared)) {
        throw new DomainError(411, 'Say how large the file is (Content-Length) when you upload it.');
      }
      const length = Number(declared);
      const call: Call = {
        method: 'PUT',
        path: filesPath(name),
        body: { stream: request.raw, length, type: request.headers['content-type'] },
      };
      const status = await forward(caller, call, request, reply);
      if (status === 201) record(caller, 'file-upload', request, { name, bytes: length });
      return reply;
    },
  });

  contractRoute(app, 'deleteFile', {
    attachValidation: true,
    handler: async (request, reply) => {
      const caller = await allowed(request);
      const { name } = request.params;
      checkName(name);
      const status = await forward(caller, { method: 'DELETE', path: filesPath(name) }, request, reply);
      if (status === 204) record(caller, 'file-delete', request, { name });
      return reply;
    },
  });
};
