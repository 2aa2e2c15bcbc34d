/**
 * Streaming sessions (`/stream`): create, read, list and end. Routes resolve the catalog and check who
 * may see what; the session manager owns the processes and ports.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { canUseSessions, isAdmin } from '../auth/tokens.ts';
import type { Catalog } from '../catalog/model.ts';
import { findApp, findVersion, latestVersion, profileApplies } from '../catalog/queries.ts';
import { forbidden, HttpError, notFound, ValidationFailure, type ValidationIssue } from '../http/errors.ts';
import { enforceRateLimit, type RateLimiter } from '../http/rate-limit.ts';
import { check, component, queryInteger } from '../http/validation.ts';
import type { SessionManager, SessionRecord } from '../sessions/types.ts';

const SESSION_ID = component('schemas/SessionId');
const STREAM_REQUEST = component('schemas/StreamRequest');
const DELETE_REQUEST = component('schemas/DeleteRequest');
const LIST = '/paths/~1stream/get/parameters';

interface StreamBody {
  id: string;
  profile: string;
  version: string;
  arguments?: Record<string, unknown>;
}

/** The Session body of the contract; `routes` only once ready. */
export function sessionBody(record: SessionRecord, publicHost: string) {
  const ready = record.state === 'ready';
  const body: {
    id: string;
    status: { condition: string; message: string; status: boolean };
    routes?: Record<
      string,
      { description: string; protocol: string; source_port: number; destination_port: number }[]
    >;
  } = { id: record.id, status: { condition: record.state, message: record.message, status: ready } };
  if (ready && record.ports) {
    const { signaling, media } = record.ports;
    body.routes = {
      [publicHost]: [
        { description: 'signaling', protocol: 'TCP', source_port: signaling, destination_port: signaling },
        { description: 'media', protocol: 'UDP', source_port: media, destination_port: media },
      ],
    };
  }
  return body;
}

function requireSessions(request: FastifyRequest): void {
  if (!canUseSessions(request.principal)) {
    throw forbidden(
      'Your role may read the catalog but not use sessions; ask an administrator for the user role.',
    );
  }
}

function notFoundIssue(field: string, msg: string): ValidationFailure {
  const issue: ValidationIssue = { loc: ['body', field], msg, type: 'not_found' };
  return new ValidationFailure([issue]);
}

/** Registers the /stream routes under the app's /api prefix. */
export function streamRoutes(
  app: FastifyInstance,
  catalog: Catalog,
  manager: SessionManager,
  publicHost: string,
  limiter: RateLimiter | null = null,
) {
  /** The session if the caller may see it: 404 when unknown, 403 when it is someone else's. */
  function owned(request: FastifyRequest, id: string, loc: (string | number)[]): SessionRecord {
    check(SESSION_ID, id, loc);
    const record = manager.get(id);
    if (!record) throw notFound('No session has this id; it may have ended.');
    if (!isAdmin(request.principal) && record.owner !== request.principal.user) {
      throw forbidden('This session belongs to someone else.');
    }
    return record;
  }

  app.post<{ Body: unknown }>('/stream', async (request, reply) => {
    requireSessions(request);
    // Counted before the body is checked: a loop of invalid requests costs the service work too.
    enforceRateLimit(limiter, request);
    const raw = request.body ?? null;
    if (raw === null)
      throw new ValidationFailure([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
    check(STREAM_REQUEST, raw, ['body']);
    const body = raw as StreamBody;
    const application = findApp(catalog, body.id);
    if (!application) throw notFoundIssue('id', `No application has id "${body.id}".`);
    const version =
      body.version === 'latest' ? latestVersion(application) : findVersion(application, body.version);
    if (!version) throw notFoundIssue('version', `${application.name} has no version "${body.version}".`);
    const profile = catalog.profiles.find((p) => p.id === body.profile);
    if (!profile) throw notFoundIssue('profile', `No profile has id "${body.profile}".`);
    if (!profileApplies(profile, application.id, version.version)) {
      throw notFoundIssue(
        'profile',
        `Profile "${profile.id}" does not apply to ${application.name} ${version.version}.`,
      );
    }
    const record = await manager.create({
      owner: request.principal.user,
      app: { id: application.id, name: application.name },
      version: version.version,
      profile: { id: profile.id, name: profile.name, settings: profile.settings },
      ...(version.launch ? { launch: version.launch } : {}),
      arguments: body.arguments ?? {},
    });
    // A session that failed while we waited still answers 202: its first poll gives the 410 and the reason.
    return reply.code(record.state === 'ready' ? 200 : 202).send(sessionBody(record, publicHost));
  });

  app.get<{ Querystring: Record<string, unknown> }>('/stream', async (request) => {
    requireSessions(request);
    const offset = queryInteger(request.query.offset, 'offset', 0);
    const limit = queryInteger(request.query.limit, 'limit', 50);
    check(`${LIST}/0/schema`, offset, ['query', 'offset']);
    check(`${LIST}/1/schema`, limit, ['query', 'limit']);
    const owner = isAdmin(request.principal) ? null : request.principal.user;
    const page = manager.list(owner, offset, limit);
    return { offset, limit, count: page.count, items: page.items.map((r) => sessionBody(r, publicHost)) };
  });

  app.get<{ Params: { session_id: string } }>('/stream/:session_id', async (request, reply) => {
    requireSessions(request);
    const record = owned(request, request.params.session_id, ['path', 'session_id']);
    if (record.state === 'failed') throw new HttpError(410, `The session failed: ${record.message}`);
    return reply.code(record.state === 'ready' ? 200 : 202).send(sessionBody(record, publicHost));
  });

  app.delete<{ Params: { session_id: string } }>('/stream/:session_id', async (request, reply) => {
    requireSessions(request);
    const record = owned(request, request.params.session_id, ['path', 'session_id']);
    await manager.end(record.id);
    return reply.code(204).send();
  });

  app.delete<{ Body: unknown }>('/stream', async (request, reply) => {
    requireSessions(request);
    const raw = request.body ?? null;
    if (raw === null)
      throw new ValidationFailure([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
    check(DELETE_REQUEST, raw, ['body']);
    const record = owned(request, (raw as { id: string }).id, ['body', 'id']);
    await manager.end(record.id);
    return reply.code(204).send();
  });
}
