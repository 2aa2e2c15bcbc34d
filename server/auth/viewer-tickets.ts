/**
 * The service's side of viewer tickets (CONTRACT section 14). Each session's secret is derived from one
 * key of the service (HMAC-SHA256 of the session id), so that nothing per session needs storing, and a
 * restarted service can still issue tickets to the applications it adopts. The key lives in the data
 * directory, readable by the service's user only.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdir, open, readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  CONTROL_TICKET_MAX_S,
  signFilesTicket,
  signServiceTicket,
  signTicket,
  verifyTicket,
  type IssuedTicket,
  type TicketGrant,
  type TicketScope,
} from '../../protocol/viewer-ticket.ts';

const KEY_FILE = 'viewer-ticket.key';
const KEY_BYTES = 32;

/**
 * A control ticket only has to last until its viewer has connected (reconnects ask for a new one): this long
 * by default, and at most, whatever `ttl_s` asks.
 */
export const CONTROL_TTL_S = CONTROL_TICKET_MAX_S;

export class ViewerTickets {
  private constructor(private readonly key: Buffer) {}

  /** Reads the data directory's key, making one (mode 0600) the first time. */
  static async open(dataDir: string): Promise<ViewerTickets> {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const file = path.join(dataDir, KEY_FILE);
    const existing = await readFile(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (existing && existing.length === KEY_BYTES) return new ViewerTickets(existing);
    const key = randomBytes(KEY_BYTES);
    // 'wx': two services starting together cannot both write a key; the loser reads the winner's.
    const handle = await open(file, existing ? 'w' : 'wx', 0o600).catch(
      async (error: NodeJS.ErrnoException) => {
        if (error.code === 'EEXIST') return null;
        throw error;
      },
    );
    if (!handle) return ViewerTickets.open(dataDir);
    try {
      await handle.writeFile(key);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return new ViewerTickets(key);
  }

  /** A key of its own, for tests. */
  static ephemeral(): ViewerTickets {
    return new ViewerTickets(randomBytes(KEY_BYTES));
  }

  /** The secret of one session: what its application checks tickets with. */
  secretOf(sessionId: string): Uint8Array {
    return new Uint8Array(createHmac('sha256', this.key).update(`viewer-ticket:${sessionId}`).digest());
  }

  /**
   * A ticket for `sessionId`, valid `ttlS` seconds (a control ticket never more than CONTROL_TTL_S). `issuedMs`:
   * the issue time a stop of sharing compares, when it must be later than now (see `SessionManager.stopSharing`).
   * `name`: the person a control ticket is for, whom the session's other viewers see by it (protocol/people.ts);
   * a watch ticket carries none, since a watch link is anyone's.
   */
  issue(
    sessionId: string,
    scope: TicketScope,
    ttlS: number,
    issuedMs?: number,
    name?: string,
  ): Promise<IssuedTicket> {
    const life = scope === 'control' ? Math.min(ttlS, CONTROL_TTL_S) : ttlS;
    const now = Date.now();
    const issued = Math.max(now, issuedMs ?? now);
    const person = scope === 'control' ? name : undefined;
    return signTicket(this.secretOf(sessionId), sessionId, scope, life, now, issued, person);
  }

  /** The service's order to `sessionId`'s application: refuse watch tickets issued until `cutoffMs`. */
  serviceTicket(sessionId: string, cutoffMs: number): Promise<string> {
    return signServiceTicket(this.secretOf(sessionId), sessionId, cutoffMs);
  }

  /** The service's ticket for one call to `sessionId`'s files on its application (protocol/files.ts). */
  filesTicket(sessionId: string): Promise<string> {
    return signFilesTicket(this.secretOf(sessionId), sessionId);
  }

  /** What a viewer ticket of `sessionId` grants, or null (checked only: using it up is the application's). */
  verify(sessionId: string, ticket: string): Promise<TicketGrant | null> {
    return verifyTicket(this.secretOf(sessionId), sessionId, ticket);
  }
}
