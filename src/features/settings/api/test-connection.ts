import { createApiClients, errorFromResponse, normaliseList } from '../../../lib/api-client';
import { baseUrlProblem, resolveBaseUrl, type PortalConfig } from '../../../lib/config';
import { describeError } from '../../../lib/error-text';

/** What "test connection" found on one API. */
export interface ProbeResult {
  ok: boolean;
  message: string;
}

/** What openapi-fetch gives for a request read as text: the body, or the error body (parsed when JSON). */
interface TextAnswer {
  data?: string;
  error?: unknown;
  response: Response;
}

/** What one API is, for the sentences: its name, where it was asked, and what counts as an answer. */
interface Probe {
  name: string;
  url: string;
  request: () => Promise<TextAnswer>;
  /** The sentence for a JSON answer (any status), or undefined to describe it as an error. */
  answered: (status: number, body: unknown) => ProbeResult | undefined;
}

function kindOf(type: string): string {
  if (type === '') return 'a body of no stated type';
  if (type.includes('html')) return 'an HTML page';
  return `a body of type ${type.split(';')[0]}`;
}

/**
 * Why a request got no answer at all. The browser says only "failed"; a second request that may not read
 * the answer (no-cors) tells a service that answers but refuses this origin (CORS) from no answer at all.
 */
async function noAnswer(url: string): Promise<string> {
  const { origin } = new URL(url);
  try {
    await globalThis.fetch(url, { mode: 'no-cors', cache: 'no-store' });
    return `${origin} answers, but does not let this page read its answers (CORS): allow the origin ${globalThis.location.origin} on that service.`;
  } catch {
    return `no answer from ${origin}: the address may be wrong, the service down, its certificate refused, or the address forbidden by this portal's security policy.`;
  }
}

/** Asks one API and says what really happened: no answer, CORS, a page that is not the API, or its answer. */
async function probe({ name, url, request, answered }: Probe): Promise<ProbeResult> {
  let answer: TextAnswer;
  try {
    answer = await request();
  } catch {
    return { ok: false, message: `${name}: ${await noAnswer(url)}` };
  }
  const { response } = answer;
  const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const type = response.headers.get('Content-Type') ?? '';
  let body: unknown = answer.error;
  if (response.ok) {
    try {
      body = JSON.parse(answer.data ?? '');
    } catch {
      body = undefined;
    }
  }
  if (!type.includes('json') || (response.ok && body === undefined)) {
    return {
      ok: false,
      message: `${name} answered ${status} with ${kindOf(type)}, not the API's JSON: check that ${url} is the API's address.`,
    };
  }
  return (
    answered(response.status, body) ?? {
      ok: false,
      message: `${name}: ${describeError(errorFromResponse(response, body), name)}`,
    }
  );
}

/** Calls both APIs with the given (maybe unsaved) settings and reports what each answered. */
export async function testConnection(
  config: PortalConfig,
): Promise<{ catalog: ProbeResult; stream: ProbeResult }> {
  const clients = createApiClients(config);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const run = (base: string, name: string, what: Omit<Probe, 'name' | 'url'>, path: string) => {
    const problem = baseUrlProblem(base);
    if (problem) return Promise.resolve({ ok: false, message: `${name} not tested: ${problem}` });
    return probe({ name, url: `${resolveBaseUrl(base)}${path}`, ...what });
  };
  const catalog = run(
    config.catalogUrl,
    'Catalog API',
    {
      request: () => clients.catalog.GET('/cfg/apps', { params: { query: {} }, parseAs: 'text' }),
      answered: (status, body) =>
        status < 300
          ? {
              ok: true,
              message: `Catalog API answered ${status}: ${plural(normaliseList(body).count, 'application')}.`,
            }
          : undefined,
    },
    '/cfg/apps',
  );
  const stream = run(
    config.streamUrl,
    'Streaming API',
    {
      request: () => clients.stream.GET('/stream', { params: { query: { limit: 1 } }, parseAs: 'text' }),
      answered: (status, body) => {
        if (status < 300) {
          const count = normaliseList(body).count;
          return { ok: true, message: `Streaming API answered ${status}: ${plural(count, 'session')}.` };
        }
        // The list is an extension; a 404/405 in the API's JSON still proves the base answers.
        if (status === 404 || status === 405) {
          return {
            ok: true,
            message: `Streaming API answered ${status}: it does not list sessions; this browser remembers its own.`,
          };
        }
        return undefined;
      },
    },
    '/stream',
  );
  return { catalog: await catalog, stream: await stream };
}
