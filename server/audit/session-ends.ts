/**
 * Sessions that end by themselves (they failed, sat idle, reached their lifetime, their application quit, the
 * service stopped) are audited as `session-ended` under their owner. One a person ended is audited by the
 * route that ended it, as `end` under that person.
 */
import type { Audit } from './audit.ts';
import { lastedSeconds } from '../sessions/ended-sessions.ts';
import type { SessionManager } from '../sessions/types.ts';

export function auditSessionEnds(manager: SessionManager, audit: Audit): void {
  manager.onEnded((ended) => {
    if (ended.cause === 'deleted') return;
    audit.record({
      user: ended.owner,
      action: 'session-ended',
      session: ended.id,
      detail: {
        cause: ended.cause,
        reason: ended.reason,
        app: ended.appId,
        version: ended.version,
        profile: ended.profileId,
        duration_s: lastedSeconds(ended),
      },
    });
  });
}
