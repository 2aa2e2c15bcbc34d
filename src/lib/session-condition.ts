/**
 * A session's condition as a person reads it: one mapping from the contract's `status.condition` (pending,
 * ready, failed, ended; api/openapi.yaml SessionStatus) and its message to a short label and the colour that
 * carries its meaning, for every page that shows a session's state.
 */
import type { Session } from './api-client';

/** The contract's conditions. */
export type SessionCondition = Session['status']['condition'];

/**
 * What a person is told: `pending` is two things to them, waiting in the queue for a GPU or starting on one,
 * which the service's message tells apart ("Waiting for a free GPU: …", "Starting USD Viewer 1.2.0").
 */
export type ConditionKind = 'waiting' | 'starting' | 'running' | 'failed' | 'ended' | 'unknown';

/** The badge of a condition: its words and its colour (MUI's palette names). */
export interface ConditionBadge {
  kind: ConditionKind;
  label: string;
  color: 'info' | 'success' | 'error' | 'default';
}

const BADGES: Record<ConditionKind, ConditionBadge> = {
  waiting: { kind: 'waiting', label: 'Waiting', color: 'info' },
  starting: { kind: 'starting', label: 'Starting', color: 'info' },
  running: { kind: 'running', label: 'Running', color: 'success' },
  failed: { kind: 'failed', label: 'Failed', color: 'error' },
  ended: { kind: 'ended', label: 'Ended', color: 'default' },
  unknown: { kind: 'unknown', label: 'Unknown', color: 'default' },
};

/** A pending session whose message says it starts (on this machine, or on a node Slurm gave it). */
function starts(message: string | undefined): boolean {
  return /^Starting\b/.test(message?.trim() ?? '');
}

/** The badge of `condition`; undefined (no description of the session at all) is said as such. */
export function conditionBadge(condition: SessionCondition | undefined, message?: string): ConditionBadge {
  switch (condition) {
    case 'pending':
      return BADGES[starts(message) ? 'starting' : 'waiting'];
    case 'ready':
      return BADGES.running;
    case 'failed':
      return BADGES.failed;
    case 'ended':
      return BADGES.ended;
    default:
      return BADGES.unknown;
  }
}

/** The service's queue message, "Waiting for a free GPU: <place>" (server/sessions/session-messages.ts). */
const QUEUED = /^Waiting for a free GPU: (.+)$/;

/**
 * A pending session's heading and the sentence under it, for the page that waits with it: "Waiting for a free
 * GPU" over "You're next" or "2 sessions ahead"; "Starting USD Viewer 1.2.0" alone; any other words of the
 * service (a Slurm queue's reason) under "Waiting for a free GPU"; no words, "Preparing the session".
 */
export function pendingWords(message: string | undefined): { heading: string; detail: string | undefined } {
  const text = message?.trim() ?? '';
  if (starts(text)) return { heading: text, detail: undefined };
  const place = QUEUED.exec(text)?.[1];
  if (place !== undefined)
    return { heading: 'Waiting for a free GPU', detail: place.charAt(0).toUpperCase() + place.slice(1) };
  if (text === '') return { heading: 'Preparing the session', detail: undefined };
  return { heading: 'Waiting for a free GPU', detail: text };
}
