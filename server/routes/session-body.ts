/** The contract's Session body, of a session the service holds and of one that ended. */
import type { components } from '../../api/schema.ts';
import { lastedSeconds } from '../sessions/ended-sessions.ts';
import type { EndedSession, SessionRecord } from '../sessions/types.ts';

/**
 * The Session body of the contract; `routes` only once ready. What was launched, when and by whom travel
 * too, so that a list read from another browser can say so.
 */
export function sessionBody(record: SessionRecord, publicHost: string): components['schemas']['Session'] {
  const ready = record.state === 'ready';
  const body: components['schemas']['Session'] = {
    id: record.id,
    status: { condition: record.state, message: record.message, status: ready },
    app: record.appId,
    version: record.version,
    profile: record.profileId,
    created_at: record.createdAt,
    user: record.owner,
    arguments: record.arguments,
  };
  if (record.endsAt !== undefined) body.ends_at = record.endsAt;
  if (record.latestEndAt !== undefined) body.latest_end_at = record.latestEndAt;
  if (record.idleEndsAt !== undefined) body.idle_ends_at = record.idleEndsAt;
  if (ready && record.ports) {
    const { signaling, media } = record.ports;
    body.routes = {
      // A session a runner placed on another machine (a Slurm node) is reached there.
      [record.host ?? publicHost]: [
        { description: 'signaling', protocol: 'TCP', source_port: signaling, destination_port: signaling },
        { description: 'media', protocol: 'UDP', source_port: media, destination_port: media },
      ],
    };
  }
  return body;
}

/**
 * A past session (`GET /stream?state=ended`, CONTRACT §22): what it ran, for whom, from when to when, and
 * why it ended, in words in `status.message`.
 */
export function endedBody(ended: EndedSession): components['schemas']['Session'] {
  return {
    id: ended.id,
    status: {
      condition: ended.cause === 'failed' ? 'failed' : 'ended',
      message: ended.reason,
      status: false,
    },
    app: ended.appId,
    version: ended.version,
    profile: ended.profileId,
    created_at: ended.createdAt,
    user: ended.owner,
    ended_at: ended.endedAt,
    duration_s: lastedSeconds(ended),
    end_cause: ended.cause,
    ...(ended.endedBy === undefined ? {} : { ended_by: ended.endedBy }),
  };
}
