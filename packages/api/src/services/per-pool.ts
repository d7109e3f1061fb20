// State kept per database (a pg pool) in a map by name, one for the whole process: on globalThis
// under a registered symbol, because a bundler may make a copy of a module per route, and a
// cache, a queue of waiting requests or a batcher must be shared by every copy.
export function perPool<T>(symbolName: string): (pool: object) => Map<string, T> {
  const key = Symbol.for(symbolName);
  const holder = globalThis as typeof globalThis & { [key: symbol]: WeakMap<object, Map<string, T>> | undefined };
  holder[key] ??= new WeakMap();
  const maps = holder[key];
  return (pool) => {
    let map = maps.get(pool);
    if (!map) {
      map = new Map();
      maps.set(pool, map);
    }
    return map;
  };
}
