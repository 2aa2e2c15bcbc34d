/** The sentences a person reads in a session's `status.message`, and in the 410 of a failed one. */
import { label } from '../catalog/queries.ts';
import type { SessionRequest } from './types.ts';

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
