/**
 * The one typed client of the Application Streaming API (types generated from api/openapi.yaml).
 * Two openapi-fetch clients share it: one on the catalog base, one on the stream base, because real
 * deployments put the two APIs under different bases (CONTRACT 13). Errors become a typed `ApiError`;
 * nothing here touches the UI.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../../api/schema';
import { authorizedFetch } from './auth/credential';
import { getConfig, getConfigRevision, resolveBaseUrl, type PortalConfig } from './config';
import { normaliseRoutes } from '../player';
import { watchedFetch } from './service-status';

type Schemas = components['schemas'];
/** An application of the catalog. */
export type Application = Schemas['Application'];
/** A profile (runtime configuration) of an application version. */
export type Profile = Schemas['Profile'];
/** A launch argument a version declares (an extension of this service, CONTRACT §20). */
export type ArgumentDeclaration = Schemas['ArgumentDeclaration'];
/** The detail of one version. */
export type VersionDetail = Schemas['VersionDetail'];
/** One network route of a ready session. */
export type Route = Schemas['Route'];
/** The body of POST /stream. */
export type StreamRequest = Schemas['StreamRequest'];
/** A session, with `routes` normalised to arrays (see `normaliseSession`). */
export type Session = Schemas['Session'];

/** One entry of a 422 body: where (`loc`), what (`msg`) and a Pydantic type name. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** A failed request: `status` 0 is a network failure (no answer at all). */
export class ApiError extends Error {
  /** HTTP status, or 0 when the request never got an answer. */
  readonly status: number;
  /** The body's `detail`: a sentence, or the list of validation issues of a 422. */
  readonly detail: string | ValidationIssue[];
  /** Seconds to wait before trying again, from `Retry-After` (503, 429). */
  readonly retryAfter?: number;

  constructor(status: number, detail: string | ValidationIssue[], retryAfter?: number) {
    super(typeof detail === 'string' ? detail : detail.map((d) => d.msg).join('; ') || `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.detail = detail;
    if (retryAfter !== undefined) this.retryAfter = retryAfter;
  }

  /** The validation issues of a 422 (empty for any other error). */
  get issues(): ValidationIssue[] {
    return typeof this.detail === 'string' ? [] : this.detail;
  }
}

/** True when `error` is an ApiError (narrowing helper for `unknown` errors from queries). */
export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

function normaliseIssue(raw: unknown): ValidationIssue {
  const obj = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const loc = Array.isArray(obj.loc)
    ? obj.loc.filter((p): p is string | number => typeof p === 'string' || typeof p === 'number')
    : [];
  return {
    loc,
    msg: typeof obj.msg === 'string' ? obj.msg : String(raw),
    type: typeof obj.type === 'string' ? obj.type : 'error',
  };
}

/** Normalises any error body into `detail`: a string stays, a list becomes issues, anything else a sentence. */
export function normaliseDetail(body: unknown, status: number): string | ValidationIssue[] {
  const detail = body !== null && typeof body === 'object' ? (body as Record<string, unknown>).detail : body;
  if (typeof detail === 'string' && detail.trim() !== '') return detail;
  if (Array.isArray(detail)) return detail.map(normaliseIssue);
  if (detail !== null && typeof detail === 'object') return [normaliseIssue(detail)];
  return `The service answered ${status}.`;
}

/** Parses `Retry-After` (seconds, or an HTTP date) into whole seconds. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** Builds the ApiError of a non-2xx response whose body was already read. */
export function errorFromResponse(response: Response, body: unknown): ApiError {
  return new ApiError(
    response.status,
    normaliseDetail(body, response.status),
    parseRetryAfter(response.headers.get('Retry-After')),
  );
}

/** The pair of typed clients. */
export interface ApiClients {
  catalog: Client<paths>;
  stream: Client<paths>;
}

/**
 * Creates both clients for a configuration; each request carries the credential of `authorizedFetch` (the
 * settings' token, or the signed-in person's). `watch` makes their requests report whether the service answers
 * (src/lib/service-status.ts); only the portal's own clients do, so that testing unsaved settings against a
 * wrong address raises no banner.
 */
export function createApiClients(config: PortalConfig, { watch = false } = {}): ApiClients {
  // Look fetch up at call time so that test interceptors installed later still see every request.
  const lateFetch = authorizedFetch(config, (input: Request) => globalThis.fetch(input));
  const catalogUrl = resolveBaseUrl(config.catalogUrl);
  const streamUrl = resolveBaseUrl(config.streamUrl);
  return {
    catalog: createClient<paths>({
      baseUrl: catalogUrl,
      fetch: watch ? watchedFetch(catalogUrl, lateFetch) : lateFetch,
    }),
    stream: createClient<paths>({
      baseUrl: streamUrl,
      fetch: watch ? watchedFetch(streamUrl, lateFetch) : lateFetch,
    }),
  };
}

let cached: { revision: number; clients: ApiClients } | undefined;

/** The clients for the current configuration; rebuilt after the settings change. */
export function getApiClients(): ApiClients {
  const revision = getConfigRevision();
  if (!cached || cached.revision !== revision)
    cached = { revision, clients: createApiClients(getConfig(), { watch: true }) };
  return cached.clients;
}

/** What `unwrap` returns: the body and the status (a 202 matters to the caller). */
export interface ApiResult<T> {
  data: T;
  status: number;
  response: Response;
}

/**
 * Awaits an openapi-fetch call and returns its body, or throws `ApiError`: any 2xx is success (CONTRACT 13:
 * some deployments answer /cfg with 202), a fetch that never got an answer is status 0.
 */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<ApiResult<T>> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    // An answer arrived but was not JSON (a proxy's HTML page, say): that is not a network failure.
    if (error instanceof SyntaxError) throw new ApiError(502, 'The service sent an answer that is not JSON.');
    throw new ApiError(
      0,
      'The service could not be reached. Check the network and the settings, then retry.',
    );
  }
  const { response } = result;
  if (!response.ok) throw errorFromResponse(response, result.error);
  return { data: result.data as T, status: response.status, response };
}

/** A list envelope as the portal uses it; `offset`/`limit` only when the deployment sent them. */
export interface ListEnvelope<T> {
  count: number;
  items: T[];
  offset?: number;
  limit?: number;
}

/** Accepts `{count, items}`, `{offset, limit, count, items}` or a bare array. */
export function normaliseList<T>(body: unknown): ListEnvelope<T> {
  if (Array.isArray(body)) return { count: body.length, items: body as T[] };
  const obj = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const items = Array.isArray(obj.items) ? (obj.items as T[]) : [];
  const out: ListEnvelope<T> = { count: typeof obj.count === 'number' ? obj.count : items.length, items };
  if (typeof obj.offset === 'number') out.offset = obj.offset;
  if (typeof obj.limit === 'number') out.limit = obj.limit;
  return out;
}

/** A session body with its routes in array form. */
export function normaliseSession(body: Session): Session {
  // The player's reading of routes is the only one; the service's Route objects pass through it whole.
  const routes = normaliseRoutes(body.routes) as Record<string, Route[]> | undefined;
  const { routes: _ignored, ...rest } = body;
  return routes ? { ...rest, routes } : rest;
}
