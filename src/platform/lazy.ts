/**
 * Fields built on first read (the composition root, src/services.ts): each field of `target`
 * becomes a getter that calls its maker the first time it is read and returns that value after.
 * Returns the set of the fields built so far (close() ends only those).
 * A field that needs itself to be built is an error, not an endless recursion.
 */
export function defineLazy<T extends object, K extends keyof T>(target: T, makers: { [P in K]: () => T[P] }): Set<keyof T> {
  const built = new Set<keyof T>();
  const building = new Set<keyof T>();
  for (const key of Object.keys(makers) as K[]) {
    let value: T[K];
    Object.defineProperty(target, key, {
      enumerable: true,
      configurable: true,
      get() {
        if (!built.has(key)) {
          if (building.has(key)) throw new Error(`${String(key)} needs itself to be built`);
          building.add(key);
          try {
            value = makers[key]();
          } finally {
            building.delete(key);
          }
          built.add(key);
        }
        return value;
      },
    });
  }
  return built;
}

/**
 * `target` with its listener registration `method` handing the listener to `keep` instead: for a
 * subscriber built later than the emitter (the read-cache bus), whose listener the emitter's own
 * listener then calls.
 */
export function redirectListener<T extends object>(target: T, method: keyof T, keep: (listener: never) => void): T {
  return new Proxy(target, {
    get(t, prop) {
      if (prop === method) return keep;
      const v = Reflect.get(t, prop, t);
      return typeof v === 'function' ? v.bind(t) : v;
    },
  });
}
