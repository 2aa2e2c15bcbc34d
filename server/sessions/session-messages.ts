/** The sentences a person reads in a session's `status.message`, and in the 410 of a failed one. */
import { label } from '../catalog/queries.ts';
import type { EndCause } from './types.ts';
import type { SessionRequest } from '../runners/runner.ts';

/** A session is named by what it launched. */
export { label };

/**
 * Status of a queued session, in the contract's style: "Waiting for a free GPU: you're next" (none ahead),
 * "...: 1 session ahead", "...: 2 sessions ahead".
 */
export function waitingMessage(ahead: number): string {
  if (ahead === 0) return "Waiting for a free GPU: you're next";
  return `Waiting for a free GPU: ${ahead} ${ahead === 1 ? 'session' : 'sessions'} ahead`;
}

/** Status of a session whose application is starting. */
export function startingMessage(request: SessionRequest): string {
  return `Starting ${label(request)}`;
}

/** Status of a ready session. */
export function readyMessage(request: SessionRequest): string {
  return `${label(request)} is ready`;
}

/** Why a session failed when its application exited. */
export function exitMessage(
  request: SessionRequest,
  code: number | null,
  signal: NodeJS.Signals | null,
  beforeReady: boolean,
  lastOutput = '',
): string {
  const how = code !== null ? `exited with code ${code}` : `was stopped by ${signal ?? 'a signal'}`;
  const said = lastOutput ? `; it said: ${lastOutput}` : '';
  return `${label(request)} ${how}${beforeReady ? ' before it was ready' : ''}${said}`;
}

/** Why a session failed when its application was not ready in time. */
export function timeoutMessage(request: SessionRequest): string {
  const seconds = Math.round(request.profile.settings.startupTimeoutMs / 100) / 10;
  return `${label(request)} was not ready within ${seconds} s`;
}

/** A span of time in words: "45 s", "10 min", "3 h", "90 min". */
export function span(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1_000)} s`;
}

/** Why a session ended, as its past record says it; a failed one says its failure's reason instead. */
export function endMessage(request: SessionRequest, cause: Exclude<EndCause, 'failed'>, by?: string): string {
  const { settings } = request.profile;
  switch (cause) {
    case 'deleted':
      return by ? `Ended by ${by}` : 'Ended';
    case 'idle':
      return `Ended after ${span(settings.idleTimeoutMs)} without a viewer`;
    case 'lifetime':
      // A profile with an initial lifetime ends its sessions there unless they were extended.
      return settings.lifetimeMs === undefined
        ? `Ended at its maximum lifetime of ${span(settings.maxLifetimeMs)}`
        : 'Ended at the end of its lifetime';
    case 'exited':
      return `${label(request)} exited`;
    case 'shutdown':
      return 'Ended when the service stopped';
    case 'unsaved':
      return 'Ended: the service could not save it';
  }
}
