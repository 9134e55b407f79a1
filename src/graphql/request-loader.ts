import DataLoader from 'dataloader';

const loaders = new WeakMap<object, Map<string, DataLoader<unknown, unknown>>>();

/**
 * The DataLoader `name` of one GraphQL request (`context` is the request's GraphQL context, which
 * lives as long as the request): field resolvers of a list ask it for one key each, and it loads
 * them all in one batch. Per request, so nothing is cached across requests or callers.
 */
export function requestLoader<K, V>(context: object, name: string, batch: DataLoader.BatchLoadFn<K, V>): DataLoader<K, V> {
  let byName = loaders.get(context);
  if (!byName) loaders.set(context, (byName = new Map()));
  let loader = byName.get(name) as DataLoader<K, V> | undefined;
  if (!loader) byName.set(name, (loader = new DataLoader<K, V>(batch)) as DataLoader<unknown, unknown>);
  return loader;
}
