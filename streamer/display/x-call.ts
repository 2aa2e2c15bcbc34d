/** A callback-style request of the x11 package as a promise. */
export function call<T>(fn: (cb: (err: Error | null, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));
}
