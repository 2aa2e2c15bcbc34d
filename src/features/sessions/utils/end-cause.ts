/** Why a session ended, in words (CONTRACT §22): a short label, and a sentence where the service sent none. */
import type { Session } from '../../../lib/api-client';

type EndCause = NonNullable<Session['end_cause']>;

const LABELS: Record<EndCause, string> = {
  deleted: 'Ended',
  idle: 'No viewer',
  lifetime: 'Lifetime reached',
  exited: 'Application quit',
  failed: 'Failed',
  shutdown: 'Service stopped',
  unsaved: 'Not saved',
};

function sentence(cause: EndCause | undefined, endedBy: string | undefined): string {
  switch (cause) {
    case 'deleted':
      return endedBy ? `Ended by ${endedBy}.` : 'Ended by a person.';
    case 'idle':
      return 'Ended after a while without a viewer.';
    case 'lifetime':
      return 'Ended at its maximum lifetime.';
    case 'exited':
      return 'The application quit.';
    case 'failed':
      return 'It failed.';
    case 'shutdown':
      return 'Ended when the service stopped.';
    case 'unsaved':
      return 'Ended: the service could not save it.';
    default:
      return 'The service did not say why it ended.';
  }
}

/** The label and the sentence of an ended session's end; the service's own words lead where it sent them. */
export function whyItEnded(session: Session): { label: string; words: string; failed: boolean } {
  const cause = session.end_cause;
  const failed = cause === 'failed' || session.status.condition === 'failed';
  const message = session.status.message?.trim();
  return {
    label: cause ? LABELS[cause] : failed ? LABELS.failed : 'Ended',
    words: message || sentence(cause, session.ended_by),
    failed,
  };
}
