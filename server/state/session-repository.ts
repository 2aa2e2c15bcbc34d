/** The ids of records that changed or went, or `all` when the caller cannot tell which. */
export type Changed = string | readonly string[] | 'all';

/** What survived: the records, where from (`none`: nothing usable), and what was damaged, in words. */
export interface LoadResult<T> {
  sessions: T[];
  source: 'main' | 'backup' | 'journal' | 'none';
  problems: string[];
}

/**
 * Where the service keeps its sessions across restarts. The caller owns the records and says which
 * changed; a write takes them as they are when it starts, so changes made together share one write.
 */
export interface SessionRepository<T> {
  /** What survived the last run; never throws on a missing, torn or foreign file. */
  load(): Promise<LoadResult<T>>;
  /** Marks records changed for the next write, without waiting: a failure is only reported. */
  note(ids: Changed): void;
  /** As `note`, then resolves once a write that started after the call is synced; rejects if it failed. */
  save(ids: Changed): Promise<void>;
  /** Resolves when every change asked for so far is on disk (or has failed). */
  flush(): Promise<void>;
}
