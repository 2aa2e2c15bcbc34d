/**
 * A disposable scope, as `AsyncDisposableStack` (which Node 20 lacks) is used: whatever a start makes is
 * deferred for disposal as soon as it is made, and disposing the scope undoes all of it, newest first, on
 * every way out. One clean-up that throws does not keep the others from running; the first error is
 * thrown once all have run.
 */
export class Scope {
  private readonly undo: (() => unknown)[] = [];
  private disposing: Promise<void> | null = null;

  /** Runs `dispose` when the scope is disposed (after everything deferred later). */
  defer(dispose: () => unknown): void {
    if (this.disposing) throw new Error('This scope has been disposed already.');
    this.undo.push(dispose);
  }

  /** `value`, with `dispose(value)` deferred. */
  use<T>(value: T, dispose: (value: T) => unknown): T {
    this.defer(() => dispose(value));
    return value;
  }

  /**
   * `made` as it settles, its disposal deferred now, in the order things were started: a scope disposed
   * while `made` is still on its way waits for it and disposes it too, so that something started beside
   * another that failed is not left behind.
   */
  adopt<T>(made: Promise<T>, dispose: (value: T) => unknown): Promise<T> {
    this.defer(async () => {
      const value = await made.then(
        (v) => ({ v }),
        () => null,
      );
      if (value) await dispose(value.v);
    });
    return made;
  }

  /** Undoes everything deferred, newest first; idempotent (a second call waits for the first). */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      let failure: { error: unknown } | null = null;
      while (this.undo.length > 0) {
        const next = this.undo.pop() as () => unknown;
        try {
          await next();
        } catch (error) {
          failure ??= { error };
        }
      }
      if (failure) throw failure.error;
    })();
    return this.disposing;
  }

  /** Runs `start` in this scope: if it throws, the scope is disposed before the error goes on. */
  async run<T>(start: (scope: Scope) => Promise<T>): Promise<T> {
    try {
      return await start(this);
    } catch (error) {
      await this.dispose().catch(() => undefined);
      throw error;
    }
  }
}
