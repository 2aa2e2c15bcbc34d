/**
 * Hostile requests for an application's WHEP endpoint, made from a real offer by a seeded generator so
 * that a failing case can be made again: malformed SDP, wrong content types, huge bodies, odd paths and
 * methods, and unusual Unicode. Each case is a raw HTTP/1.1 request.
 */

/** A small deterministic generator (mulberry32). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface FuzzCase {
  kind: string;
  request: Buffer;
}

const ODD_TEXT = [
  '\u202e', // right-to-left override
  '\u0000',
  '\ufeff',
  '\ud83d\ude00',
  'e\u0301',
  '\u200b',
  '%00',
  '%ff%fe',
  '\r\n',
  '../../',
  '${jndi:ldap://x}',
  '\'"<script>',
];

function request(method: string, target: string, body: Buffer | string, type?: string): Buffer {
  const payload = typeof body === 'string' ? Buffer.from(body) : body;
  const head =
    `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n` +
    (type === undefined ? '' : `Content-Type: ${type}\r\n`) +
    `Content-Length: ${payload.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), payload]);
}

function mutateSdp(offer: string, next: () => number): { kind: string; sdp: Buffer } {
  const lines = offer.split('\r\n');
  const pick = <T>(list: T[]): T => list[Math.floor(next() * list.length)] as T;
  const line = () => Math.floor(next() * lines.length);
  switch (Math.floor(next() * 10)) {
    case 0:
      return { kind: 'sdp truncated', sdp: Buffer.from(offer.slice(0, Math.floor(next() * offer.length))) };
    case 1: {
      const copy = [...lines];
      copy.splice(line(), 1 + Math.floor(next() * 5));
      return { kind: 'sdp lines removed', sdp: Buffer.from(copy.join('\r\n')) };
    }
    case 2: {
      const copy = [...lines];
      const at = line();
      copy.splice(at, 0, ...Array.from({ length: 1 + Math.floor(next() * 50) }, () => copy[at] ?? ''));
      return { kind: 'sdp lines repeated', sdp: Buffer.from(copy.join('\r\n')) };
    }
    case 3: {
      const bytes = Buffer.from(offer);
      for (let i = 0; i < 1 + next() * 20; i++)
        bytes[Math.floor(next() * bytes.length)] = Math.floor(next() * 256);
      return { kind: 'sdp bytes flipped', sdp: bytes };
    }
    case 4: {
      const copy = [...lines];
      const at = line();
      copy[at] = `${copy[at] ?? ''}${pick(ODD_TEXT).repeat(1 + Math.floor(next() * 40))}`;
      return { kind: 'sdp odd unicode', sdp: Buffer.from(copy.join('\r\n')) };
    }
    case 5:
      return {
        kind: 'sdp without video',
        sdp: Buffer.from(lines.filter((l) => !/^m=video|^a=rtpmap:96/.test(l)).join('\r\n')),
      };
    case 6:
      return {
        kind: 'sdp other codec',
        sdp: Buffer.from(offer.replace(/VP8/g, pick(['H264', 'AV1', 'XYZ', '']))),
      };
    case 7: {
      const copy = [...lines];
      copy[line()] = `a=${'x'.repeat(1_000 + Math.floor(next() * 30_000))}`;
      return { kind: 'sdp long line', sdp: Buffer.from(copy.join('\r\n')) };
    }
    case 8:
      return {
        kind: 'sdp bare newlines',
        sdp: Buffer.from(offer.replace(/\r\n/g, pick(['\n', '\r', '\r\r\n', '']))),
      };
    default:
      return {
        kind: 'sdp numbers',
        sdp: Buffer.from(
          offer.replace(/\b\d+\b/g, () => pick(['-1', '0', '99999999999999999999', 'NaN', '1e400'])),
        ),
      };
  }
}

/** `count` cases from `offer` (a real SDP offer), deterministic for a seed. */
export function whepFuzzCases(offer: string, count: number, seed = 1): FuzzCase[] {
  const next = random(seed);
  const pick = <T>(list: T[]): T => list[Math.floor(next() * list.length)] as T;
  const cases: FuzzCase[] = [];
  const sdp = 'application/sdp';
  for (let i = 0; cases.length < count; i++) {
    switch (i % 6) {
      case 0:
      case 1:
      case 2: {
        const { kind, sdp: body } = mutateSdp(offer, next);
        cases.push({ kind, request: request('POST', '/whep', body, sdp) });
        break;
      }
      case 3: {
        const type = pick([
          'text/plain',
          'application/json',
          'application/sdp; charset=utf-16',
          'multipart/form-data; boundary=x',
          '',
          'application/sdp\u0000',
          'APPLICATION/SDP;;;;',
          undefined,
        ]);
        cases.push({ kind: 'content type', request: request('POST', '/whep', offer, type) });
        break;
      }
      case 4: {
        const target = pick([
          '/whep/../health',
          '/whep/%2e%2e/health',
          '//whep',
          '/WHEP',
          '/whep/',
          `/whep/${'a'.repeat(8_000)}`,
          `/whep?mode=${encodeURIComponent(pick(ODD_TEXT))}`,
          `/whep/${encodeURIComponent(pick(ODD_TEXT))}`,
          '/whep/%zz',
          '/whep#x',
          '*',
          'http://evil.example/whep',
        ]);
        const method = pick(['POST', 'DELETE', 'PUT', 'PATCH', 'GET', 'OPTIONS', 'TRACE']);
        cases.push({
          kind: `odd path ${method}`,
          request: request(method, target, method === 'POST' ? offer : '', sdp),
        });
        break;
      }
      default: {
        const size = pick([64 * 1024 + 1, 200_000, 1_000_000]);
        cases.push({
          kind: 'huge body',
          request: request('POST', '/whep', Buffer.alloc(size, 'v=0\r\n'), sdp),
        });
      }
    }
  }
  return cases;
}
