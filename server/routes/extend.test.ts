/**
 * POST /stream/{id}/extend against an in-memory manager whose sessions keep their lifetimes as the real ones
 * do (sessions/lifetime.ts), on a fixed clock: who may extend, how far, and what a refusal leaves unchanged.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { AuditLog } from '../audit/audit-log.ts';
import { TokenStore } from '../auth/tokens.ts';
import { ViewerTickets } from '../auth/viewer-tickets.ts';
import { parseCatalog } from '../catalog/load-catalog.ts';
import type { ProfileSettings } from '../catalog/model.ts';
import { extended, lifetimeOf } from '../sessions/lifetime.ts';
import type { SessionManager, SessionRecord } from '../sessions/types.ts';
import { bearer, standInCatalog, testConfig, TOKENS_YAML } from '../../test-support/test-support.ts';
import { testSettings } from '../../test-support/session-support.ts';

const ID = '6f1c2a9e-8b7d-4e3f-9a1b-2c3d4e5f6a7b';
const STARTED = Date.parse('2026-01-05T09:00:00Z');
const MIN = 60_000;

/** One session, ready, with a 30-minute lifetime that may grow to 120, as the manager would hold it. */
class OneSession {
  settings: ProfileSettings = { ...testSettings, lifetimeMs: 30 * MIN, maxLifetimeMs: 120 * MIN };
  extendedMs = 0;
  state: SessionRecord['state'] = 'ready';
  asked: number[] = [];

  record(): SessionRecord {
    const { endsAt, latestEndAt } = lifetimeOf(STARTED, this.settings, this.extendedMs);
    return {
      id: ID,
      owner: 'alice',
      appId: 'usd-viewer',
      appName: 'USD Viewer',
      version: '1.2.0',
      profileId: 'default',
      arguments: {},
      state: this.state,
      message: this.state === 'failed' ? 'it crashed' : 'USD Viewer 1.2.0 is ready',
      createdAt: new Date(STARTED).toISOString(),
      ports: { signaling: 27000, media: 27001 },
      endsAt: new Date(endsAt).toISOString(),
      latestEndAt: new Date(latestEndAt).toISOString(),
    };
  }

  manager(): SessionManager {
    const partial: Partial<SessionManager> = {
      get: (id) => (id === ID ? this.record() : undefined),
      extend: async (id, minutes) => {
        this.asked.push(minutes);
        if (id !== ID) return undefined;
        const next = extended(STARTED, this.settings, this.extendedMs, minutes);
        if ('refused' in next) return next;
        this.extendedMs = next.extendedMs;
        return this.record();
      },
      onEnded: () => {},
    };
    return partial as SessionManager;
  }
}

let session: OneSession;
let app: FastifyInstance;
let audit: AuditLog;
let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'streamgate-extend-'));
  session = new OneSession();
  audit = new AuditLog(dataDir);
  app = await buildApp(testConfig({ dataDir, staticDir: path.join(dataDir, 'no-portal') }), {
    catalog: parseCatalog(standInCatalog(), 'catalog.yaml'),
    manager: session.manager(),
    tokens: TokenStore.parse(TOKENS_YAML, 'tokens.yaml'),
    audit,
  });
});
afterEach(async () => {
  await app.close();
  await audit.close();
  await rm(dataDir, { recursive: true, force: true });
});

const extend = (headers: Record<string, string>, payload?: unknown, id = ID) =>
  app.inject({
    method: 'POST',
    url: `/api/stream/${id}/extend`,
    headers,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

const endsAt = async () =>
  (await app.inject({ url: `/api/stream/${ID}`, headers: bearer('alice') })).json().ends_at as string;

describe('POST /api/stream/{id}/extend', () => {
  it('lets the owner extend by 30 minutes by default, and shows the new end on the session', async () => {
    expect(await endsAt()).toBe('2026-01-05T09:30:00.000Z');
    const res = await extend(bearer('alice'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: ID,
      ends_at: '2026-01-05T10:00:00.000Z',
      latest_end_at: '2026-01-05T11:00:00.000Z',
    });
    expect(await endsAt()).toBe('2026-01-05T10:00:00.000Z');
    await audit.flush();
    const { items } = await audit.read({ limit: 10 });
    expect(items).toMatchObject([
      {
        user: 'alice',
        action: 'extend',
        session: ID,
        detail: { minutes: 30, ends_at: '2026-01-05T10:00:00.000Z' },
      },
    ]);
  });

  it('lets an admin extend it too, saying whose it is, by the minutes asked', async () => {
    const res = await extend(bearer('ada'), { minutes: 15 });
    expect(res.statusCode).toBe(200);
    expect(res.json().ends_at).toBe('2026-01-05T09:45:00.000Z');
    await audit.flush();
    const { items } = await audit.read({ limit: 10 });
    expect(items[0]).toMatchObject({ user: 'ada', detail: { owner: 'alice', as_admin: true, minutes: 15 } });
  });

  it('refuses another user, a viewer, a caller without a token and a watch ticket, as every session endpoint does', async () => {
    expect((await extend(bearer('bob'))).statusCode).toBe(403);
    expect((await extend(bearer('vera'))).statusCode).toBe(403);
    expect((await extend({})).statusCode).toBe(403);
    // A watch link's ticket lets its holder see the stream, not use the API.
    const tickets = await ViewerTickets.open(dataDir);
    const { ticket } = await tickets.issue(ID, 'watch', 600);
    const watcher = await extend({ authorization: `Bearer ${ticket}` });
    expect(watcher.statusCode).toBe(403);
    expect(watcher.json()).toEqual({ detail: 'Not authenticated' });
    expect(session.asked).toEqual([]);
    expect(await endsAt()).toBe('2026-01-05T09:30:00.000Z');
  });

  it('cuts an extension at the maximum lifetime, then answers 422 at minutes, in words', async () => {
    const res = await extend(bearer('alice'), { minutes: 600 });
    expect(res.statusCode).toBe(200);
    expect(res.json().ends_at).toBe('2026-01-05T11:00:00.000Z');
    const past = await extend(bearer('alice'), { minutes: 5 });
    expect(past.statusCode).toBe(422);
    expect(past.json().detail).toEqual([
      {
        loc: ['body', 'minutes'],
        msg: "The session already runs to its profile's maximum lifetime of 2 h; it cannot be extended.",
        type: 'value_error',
      },
    ]);
    expect(await endsAt()).toBe('2026-01-05T11:00:00.000Z');
  });

  it('answers 422 for a profile without an initial lifetime: its sessions run to their maximum already', async () => {
    session.settings = { ...testSettings, maxLifetimeMs: 120 * MIN };
    const res = await extend(bearer('alice'));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].msg).toMatch(/already runs to its profile's maximum lifetime of 2 h/);
  });

  it('refuses a bad body with 422 at its field, and changes nothing', async () => {
    for (const payload of [{ minutes: 0 }, { minutes: 1.5 }, { minutes: 'ten' }, { minutes: 10_081 }]) {
      const res = await extend(bearer('alice'), payload);
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['body', 'minutes']);
    }
    expect(session.asked).toEqual([]);
    expect(await endsAt()).toBe('2026-01-05T09:30:00.000Z');
  });

  it('answers 404 for an unknown session, 410 for a failed one, 422 for a malformed id', async () => {
    expect((await extend(bearer('alice'), undefined, crypto.randomUUID())).statusCode).toBe(404);
    const malformed = await extend(bearer('alice'), undefined, 'not-a-session');
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json().detail[0].loc).toEqual(['path', 'session_id']);
    session.state = 'failed';
    expect((await extend(bearer('alice'))).statusCode).toBe(410);
  });
});
