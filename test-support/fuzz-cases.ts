/**
 * Malformed requests for server/fuzz.test.ts, from a seeded generator so that a failure can be replayed.
 */
import type { InjectOptions } from 'fastify';

/** mulberry32: small, fast and good enough to pick cases. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let rnd = random(1);

/** Starts the sequence of cases again from `seed`. */
export function reseed(seed: number): void {
  rnd = random(seed);
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)] as T;
const int = (max: number) => Math.floor(rnd() * max);

const ODD_SEGMENTS = [
  '..',
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e%2f',
  '..%5c..%5cwindows',
  '%00',
  'a%00b',
  '%ZZ',
  '%',
  '%E0%A4%A',
  '%C0%AF',
  '*',
  '%2A',
  '**',
  '.',
  '-leading-dash',
  'a'.repeat(65),
  'x'.repeat(3000),
  'CON',
  'id with space',
  'tab%09tab',
  'line%0Abreak',
  encodeURIComponent('🚀'),
  encodeURIComponent('e\u0301'),
  encodeURIComponent('\u202Eevil'),
  encodeURIComponent('zero\u200Bwidth'),
  encodeURIComponent('ＡＢＣ'),
  '\u00e9t\u00e9',
  '%F0%9F%98',
  '1.0.0+',
  '1.0.0-',
  '01.0.0',
  '1.0.0-01',
  '1.0.0+build..5',
  'latest',
  '00000000-0000-0000-0000-000000000000',
  '0B0C1D2E-3F40-4A5B-8C6D-7E8F90A1B2C3',
  'undefined',
  'null',
  '__proto__',
  'constructor',
  'toString',
];

function oddSegment(): string {
  if (rnd() < 0.25) {
    // Random bytes, percent-encoded, some of them not UTF-8.
    return Array.from({ length: 1 + int(12) }, () => `%${int(256).toString(16).padStart(2, '0')}`).join('');
  }
  return pick(ODD_SEGMENTS);
}

function oddPath(): string {
  const s = oddSegment;
  return pick([
    () => `/api/cfg/apps/${s()}`,
    () => `/api/cfg/apps/${s()}/versions`,
    () => `/api/cfg/apps/usd-viewer/versions/${s()}`,
    () => `/api/cfg/apps/${s()}/versions/${s()}/profiles`,
    () => `/api/cfg/apps/*/versions/*/profiles/${s()}`,
    () => `/api/stream/${s()}`,
    () => `/api/${s()}`,
    () => `/api/cfg/${s()}/apps`,
    () => `/api//cfg//apps`,
    () => `/api/cfg/apps/usd-viewer/versions/1.10.0/profiles/default/${s()}`,
  ])();
}

const ODD_VALUES = [
  '',
  '-1',
  '1e3',
  '0x10',
  '1.5',
  ' 1',
  'NaN',
  'Infinity',
  '99999999999999999999',
  '٣',
  'abc',
  '%00',
];

function oddQuery(): string {
  return pick([
    () => `/api/stream?limit=${encodeURIComponent(pick(ODD_VALUES))}`,
    () => `/api/stream?offset=${encodeURIComponent(pick(ODD_VALUES))}`,
    () => `/api/stream?limit=0`,
    () => `/api/stream?limit=501`,
    () => `/api/stream?limit[]=1&offset[x]=2`,
    () => `/api/stream?limit=${oddSegment()}`,
    () => `/api/cfg/apps?tags=${'t'.repeat(129 + int(500))}`,
    () => `/api/cfg/apps?${Array.from({ length: 33 + int(40) }, (_, i) => `tags=t${i}`).join('&')}`,
    () => `/api/cfg/apps?tags=${oddSegment()}&tags=${oddSegment()}`,
    () => `/api/cfg/apps?tags[0]=a&tags[1]=b`,
    () => `/api/cfg/apps?%ZZ=%ZZ&tags=%`,
  ])();
}

/** A request body that is valid: every case departs from it. */
export const VALID = {
  id: 'usd-viewer',
  profile: 'default',
  version: '1.10.0',
  arguments: { usd_stage_uri: 'a.usd' },
};
const WRONG_VALUES: unknown[] = [
  null,
  0,
  -1,
  1.5,
  true,
  [],
  {},
  [1, 2],
  { a: 1 },
  '',
  '../x',
  '*',
  'x'.repeat(300),
  '🚀',
];

/** A POST /stream body that is certainly invalid: one field is missing or of a wrong value. */
function badStreamBody(): unknown {
  const body: Record<string, unknown> = structuredClone(VALID);
  switch (int(5)) {
    case 0:
      delete body[pick(['id', 'profile'])];
      break;
    case 1:
      body.id = pick(WRONG_VALUES);
      break;
    case 2:
      body.profile = pick(WRONG_VALUES);
      break;
    case 3:
      body.version = pick([...WRONG_VALUES, '1.2', 'v1.0.0', 'LATEST', '1.0.0+']);
      break;
    default:
      body.arguments = pick([
        null,
        1,
        'x',
        [],
        [{}],
        { usd_stage_uri: 5 },
        { usd_stage_uri: 'u'.repeat(2049) },
      ]);
  }
  return body;
}

function badJson(): string {
  const text = JSON.stringify(VALID);
  return pick([
    () => text.slice(0, int(text.length)),
    () => text.replace(/"/g, "'"),
    () => `${text},`,
    () => `{"id": "usd-viewer", "profile": "default",}`,
    () => `{"id": NaN}`,
    () => '[' + '['.repeat(int(5000)),
    () => '{"a":'.repeat(int(3000)) + '1' + '}'.repeat(int(3000)),
    () => '\u0000\u0001\u0002',
    () => `${text}garbage`,
    () => `{"__proto__": {"admin": true}, "id": "usd-viewer", "profile": "default"}`,
    () => `{"constructor": {"prototype": {"x": 1}}}`,
    () => String.fromCharCode(...Array.from({ length: 1 + int(40) }, () => int(65_536))),
    () => 'null',
    () => '"just a string"',
    () => '12',
  ])();
}

/** The next malformed request: odd paths and queries, invalid or oversized bodies, odd methods. */
export function requestCase(): InjectOptions {
  const json = { 'content-type': 'application/json' };
  switch (int(8)) {
    case 0:
      return { method: 'GET', url: oddPath() };
    case 1:
      return { method: 'GET', url: oddQuery() };
    case 2:
      return { method: 'POST', url: '/api/stream', headers: json, payload: JSON.stringify(badStreamBody()) };
    case 3:
      return { method: 'POST', url: '/api/stream', headers: json, payload: badJson() };
    case 4: {
      const contentType = pick([
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/xml',
        'multipart/form-data',
      ]);
      return {
        method: 'POST',
        url: '/api/stream',
        headers: { 'content-type': contentType },
        payload: 'id=usd-viewer',
      };
    }
    case 5:
      return pick<InjectOptions>([
        { method: 'DELETE', url: `/api/stream/${oddSegment()}` },
        {
          method: 'DELETE',
          url: '/api/stream',
          headers: json,
          payload: JSON.stringify({ id: pick(WRONG_VALUES) }),
        },
        { method: 'DELETE', url: '/api/stream', headers: json, payload: badJson() },
        { method: 'DELETE', url: '/api/stream' },
      ]);
    case 6:
      return {
        method: pick(['PUT', 'PATCH', 'OPTIONS', 'DELETE'] as const),
        url: pick(['/api/cfg/apps', oddPath()]),
      };
    default: {
      // Over 64 KiB, declared or streamed.
      const pad = 'x'.repeat(65_536 + int(40_000));
      return {
        method: pick(['POST', 'DELETE'] as const),
        url: '/api/stream',
        headers: json,
        payload: `{"pad":"${pad}"}`,
      };
    }
  }
}
