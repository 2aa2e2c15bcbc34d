/**
 * The rules of viewer-access.ts on their own, with a clock of the test's: a control ticket serves one
 * connection, watchers leave a place for a controller, and the service's order stops the sharing. The same
 * rules against the real application and service: reliability/fair-use.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { signServiceTicket, signTicket, type TicketScope } from '../../protocol/viewer-ticket.ts';
import type { HttpError } from './signaling.ts';
import { MAX_REFUSED_TICKETS, REFUSED_TICKET_MESSAGE, ViewerAccess } from './viewer-access.ts';

const SESSION = '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
const secret = new Uint8Array(Buffer.alloc(32, 9));

const ticket = async (scope: TicketScope, at: number, ttlS = 60) =>
  (await signTicket(secret, SESSION, scope, ttlS, at)).ticket;

/** The status an admission is refused with, or 'admitted'. */
const outcome = (admitting: Promise<unknown>) =>
  admitting.then(
    () => 'admitted' as const,
    (error: HttpError) => error.status,
  );

describe('the rules of viewer access', () => {
  const T0 = Date.UTC(2026, 10, 27, 9, 0, 0);
  let clock = T0;
  const access = (maxViewers = 4) =>
    new ViewerAccess({ sessionId: SESSION, secret, maxViewers, now: () => clock });
  const issue = (scope: TicketScope, at = clock, ttlS = 60) => ticket(scope, at, ttlS);

  it('lets a control ticket make one viewer: a second use is refused as a bad ticket', async () => {
    clock = T0;
    const rules = access();
    const once = await issue('control');
    const first = await rules.admit(once, 'control');
    expect(await outcome(rules.admit(once, 'control'))).toBe(401);
    // Still the key of its own viewer (GET /health, DELETE).
    expect(await rules.check(once)).toBe('control');
    // Gone, the viewer does not give its ticket back.
    first.leave();
    expect(await outcome(rules.admit(once, 'control'))).toBe(401);
    expect(await outcome(rules.admit(await issue('control'), 'control'))).toBe('admitted');
  });

  it('gives a control ticket back when its offer failed before a viewer was made', async () => {
    clock = T0;
    const rules = access();
    const once = await issue('control');
    (await rules.admit(once, 'control')).refund();
    expect(await outcome(rules.admit(once, 'control'))).toBe('admitted');
  });

  it('refuses a control ticket older than two minutes, whatever its expiry says', async () => {
    clock = T0;
    const rules = access();
    const long = await issue('control', T0, 3 * 3600);
    clock = T0 + 121_000;
    expect(await rules.check(long)).toBeNull();
    expect(await outcome(rules.admit(long, 'control'))).toBe(401);
    // A watch ticket lives as long as it says.
    expect(await outcome(rules.admit(await issue('watch', T0, 3 * 3600), 'watch'))).toBe('admitted');
  });

  it('lets one watch ticket make many viewers', async () => {
    clock = T0;
    const rules = access();
    const link = await issue('watch');
    expect(await outcome(rules.admit(link, 'watch'))).toBe('admitted');
    expect(await outcome(rules.admit(link, 'watch'))).toBe('admitted');
  });

  it('keeps the last place for a controller: watchers get a 503 with a sentence before it', async () => {
    clock = T0;
    const rules = access(3);
    const link = await issue('watch');
    await rules.admit(link, 'watch');
    await rules.admit(link, 'watch');
    const refused = await rules.admit(link, 'watch').catch((error: HttpError) => error);
    expect(refused).toMatchObject({ status: 503, headers: { 'Retry-After': '10' } });
    expect((refused as HttpError).message).toBe(
      'This session already has 2 watchers, its most: its last place is kept for its owner. Try again when one leaves.',
    );
    // A control ticket asking to watch only is a watcher too.
    expect(await outcome(rules.admit(await issue('control'), 'watch'))).toBe(503);
    await rules.admit(await issue('control'), 'control');
    const full = await rules.admit(await issue('control'), 'control').catch((error: HttpError) => error);
    expect(full).toMatchObject({ status: 503, message: expect.stringMatching(/already has 3 viewers/) });
    expect(rules.viewers).toBe(3);
  });

  it('takes no watcher where the profile takes one viewer', async () => {
    clock = T0;
    const rules = access(1);
    const refused = await rules.admit(await issue('watch'), 'watch').catch((error: HttpError) => error);
    expect(refused).toMatchObject({ status: 503, message: expect.stringMatching(/cannot be watched/) });
    expect(await outcome(rules.admit(await issue('control'), 'control'))).toBe('admitted');
  });

  it('stops the sharing on a service ticket: earlier watch tickets refused, their viewers dropped, later ones good', async () => {
    clock = T0;
    const rules = access();
    const link = await issue('watch');
    const closed: string[] = [];
    const watcher = await rules.admit(link, 'watch');
    watcher.attach(() => closed.push('watcher'));
    const owner = await rules.admit(await issue('control'), 'control');
    owner.attach(() => closed.push('owner'));
    // Still connecting when the sharing stops: dropped as it is made.
    const connecting = await rules.admit(link, 'watch');

    clock = T0 + 5_000;
    // A viewer ticket is not the service's, however good.
    expect(await rules.stopSharing(link)).toBeNull();
    expect(await rules.stopSharing(await issue('control'))).toBeNull();
    const order = await signServiceTicket(secret, SESSION, clock, clock);
    expect(await rules.stopSharing(order)).toBe(2);
    expect(closed).toEqual(['watcher']);
    connecting.attach(() => closed.push('connecting'));
    expect(closed).toEqual(['watcher', 'connecting']);
    expect(rules.viewers).toBe(1);

    expect(await rules.check(link)).toBeNull();
    expect(await outcome(rules.admit(link, 'watch'))).toBe(401);
    // Issued in the same millisecond as the stop, but after it (the service gives it a later issue time).
    const fresh = (await signTicket(secret, SESSION, 'watch', 60, clock, clock + 1)).ticket;
    expect(await outcome(rules.admit(fresh, 'watch'))).toBe('admitted');
    // The order serves once; an older one does not bring the earlier tickets back.
    expect(await rules.stopSharing(order)).toBeNull();
    expect(await rules.stopSharing(await signServiceTicket(secret, SESSION, T0 - 1, clock))).toBe(0);
    expect(await outcome(rules.admit(link, 'watch'))).toBe(401);
    // Another session's order is nothing here.
    expect(
      await rules.stopSharing(await signServiceTicket(secret, crypto.randomUUID(), clock, clock)),
    ).toBeNull();
  });

  it('forgets spent tickets once they could no longer be used', async () => {
    clock = T0;
    const rules = access();
    const once = await issue('control', T0, 60);
    await rules.admit(once, 'control');
    clock = T0 + 61_000;
    expect(await outcome(rules.admit(once, 'control'))).toBe(401);
    expect((rules as unknown as { spent: Map<string, number> }).spent.size).toBe(0);
  });

  it('refuses the ticket of a removed viewer in words, and keeps the others it made', async () => {
    clock = T0;
    const rules = access();
    const link = await issue('watch');
    const closed: string[] = [];
    const removed = await rules.admit(link, 'watch');
    removed.attach(() => closed.push('removed'));
    const other = await rules.admit(link, 'watch');
    other.attach(() => closed.push('other'));
    removed.refuseTicket();
    const again = await rules.admit(link, 'watch').catch((error: HttpError) => error);
    expect(again).toMatchObject({ status: 403, message: REFUSED_TICKET_MESSAGE });
    // Refusing the ticket ends nobody: the removed viewer is ended by the stream server, the other stays.
    expect(closed).toEqual([]);
    expect(rules.viewers).toBe(2);
    // Still the key of the viewers it made (GET /health, DELETE), and another link still connects.
    expect(await rules.check(link)).toBe('watch');
    expect(await outcome(rules.admit(await issue('watch'), 'watch'))).toBe('admitted');
  });

  it('forgets a refused ticket once it expires', async () => {
    clock = T0;
    const rules = access();
    (await rules.admit(await issue('watch', T0, 60), 'watch')).refuseTicket();
    const refused = (rules as unknown as { refused: Map<string, number> }).refused;
    expect(refused.size).toBe(1);
    clock = T0 + 61_000;
    await rules.admit(await issue('control'), 'control');
    expect(refused.size).toBe(0);
  });

  it(`remembers at most ${MAX_REFUSED_TICKETS} refused tickets, forgetting the one that expires first`, async () => {
    clock = T0;
    const rules = access(MAX_REFUSED_TICKETS + 2);
    const soonest = await issue('watch', T0, 30);
    (await rules.admit(soonest, 'watch')).refuseTicket();
    for (let i = 0; i < MAX_REFUSED_TICKETS; i++) {
      const admission = await rules.admit(await issue('watch', T0, 600 + i), 'watch');
      admission.refuseTicket();
      admission.leave();
    }
    expect((rules as unknown as { refused: Map<string, number> }).refused.size).toBe(MAX_REFUSED_TICKETS);
    expect(await outcome(rules.admit(soonest, 'watch'))).toBe('admitted');
  });

  it('takes anyone as a controller when the application runs alone, and no service order', async () => {
    const alone = new ViewerAccess({ sessionId: SESSION, secret: null, maxViewers: 2 });
    expect(await alone.check(null)).toBe('control');
    expect((await alone.admit(null, 'control')).scope).toBe('control');
    expect(await alone.stopSharing(await signServiceTicket(secret, SESSION, Date.now()))).toBeNull();
  });
});
