/**
 * The session state under the names the manager and the restore use; the repository is in server/state/
 * (`SessionRepository`, `JournalRepository`), which new code imports directly.
 */
import { JournalRepository } from '../state/journal-repository.ts';

export type { LoadResult } from '../state/session-repository.ts';

export class StateStore<T, S = T> extends JournalRepository<T, S> {
  /** The whole state, as `save('all')`. */
  saveAll(): Promise<void> {
    return this.save('all');
  }
}
