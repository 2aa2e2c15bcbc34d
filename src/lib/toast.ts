/** A tiny store of transient notices, so non-React code (the QueryCache) can raise one. */

/** One notice shown briefly at the bottom of the page. */
export interface Toast {
  id: number;
  message: string;
  severity: 'error' | 'info' | 'success';
}

let toasts: Toast[] = [];
let nextId = 1;
const listeners = new Set<() => void>();

function emit(): void {
  for (const listener of listeners) listener();
}

/** Shows a notice. */
export function showToast(message: string, severity: Toast['severity'] = 'error'): void {
  // The same failure from several background refetches is one notice, not a pile.
  if (toasts.some((t) => t.message === message)) return;
  toasts = [...toasts, { id: nextId++, message, severity }];
  emit();
}

/** Removes a notice. */
export function dismissToast(id: number): void {
  toasts = toasts.filter((t) => t.id !== id);
  emit();
}

/** The notices now shown (a stable array between changes, for useSyncExternalStore). */
export function getToasts(): Toast[] {
  return toasts;
}

/** Subscribes to changes; returns the unsubscribe function. */
export function subscribeToasts(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
