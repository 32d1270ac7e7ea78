/**
 * One load per key, shared by concurrent callers, like a warm Lambda's module cache. A load that
 * fails is forgotten, so the next call tries again (e.g. after the file was fixed).
 */
export function memoizeByKey<T>(load: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const loads = new Map<string, Promise<T>>();
  return (key) => {
    let loaded = loads.get(key);
    if (!loaded) {
      loaded = load(key);
      loads.set(key, loaded);
      loaded.catch(() => loads.delete(key));
    }
    return loaded;
  };
}
