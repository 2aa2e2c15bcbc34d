/** A minimal typed event emitter: listeners get the event's payload, and subscribing returns an unsubscribe. */

/** Listener of one event type. */
export type Listener<T> = (detail: T) => void;

/** Typed `addEventListener`/`removeEventListener` over a map from event name to payload type. */
export class TypedEmitter<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<Listener<never>>>();

  /** Subscribes; the returned function unsubscribes. */
  addEventListener<K extends keyof Events>(type: K, listener: Listener<Events[K]>): () => void {
    let set = this.listeners.get(type);
    if (!set) {
      set = new Set();
      this.listeners.set(type, set);
    }
    set.add(listener as Listener<never>);
    return () => this.removeEventListener(type, listener);
  }

  /** Unsubscribes a listener added before. */
  removeEventListener<K extends keyof Events>(type: K, listener: Listener<Events[K]>): void {
    this.listeners.get(type)?.delete(listener as Listener<never>);
  }

  protected emit<K extends keyof Events>(type: K, detail: Events[K]): void {
    for (const listener of [...(this.listeners.get(type) ?? [])]) {
      try {
        (listener as Listener<Events[K]>)(detail);
      } catch (error) {
        // One faulty listener must not stop the others or the player.
        console.error(error);
      }
    }
  }
}
