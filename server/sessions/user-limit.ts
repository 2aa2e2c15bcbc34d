/**
 * The per-user limit of POST /stream (CONTRACT section 16): sessions pending or ready per user, so
 * that one user cannot take every GPU and queue place and lock everyone else out. Admins are not
 * limited; without a tokens file every caller is an admin.
 */
import { isAdmin, type Principal } from '../auth/tokens.ts';
import type { SessionManager } from './types.ts';
import { DomainError } from '../errors.ts';

/** A place frees only when a session ends, which nobody can foresee; a client that retries waits this. */
export const USER_LIMIT_RETRY_SECONDS = 30;

/** Throws a 429 with Retry-After when `caller` already has `limit` sessions; null: no limit. */
export function enforceUserLimit(limit: number | null, manager: SessionManager, caller: Principal): void {
  if (limit === null || isAdmin(caller)) return;
  const active = manager.activeCount(caller.user);
  if (active < limit) return;
  throw new DomainError(
    429,
    `You already have ${active} ${active === 1 ? 'session' : 'sessions'} running or waiting; ` +
      'end one before starting another.',
    { 'retry-after': String(USER_LIMIT_RETRY_SECONDS) },
  );
}
