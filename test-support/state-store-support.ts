/**
 * Test support for the state store's tests: stores over a temporary data directory (removed after each
 * test) and a map of small items, as the manager keeps its sessions.
 */
import { readFile } from 'node:fs/promises';
import { afterEach } from 'vitest';
import { StateStore, type StoreOptions } from '../server/sessions/state-store.ts';
import { removeDir, tempDataDir } from './session-support.ts';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await removeDir(dir);
  dir = undefined;
});

export interface Item {
  id: string;
  n: number;
}

/** A store over a map of items by id, as the manager keeps its sessions. */
export function storeOver(
  directory: string,
  items = new Map<string, Item>(),
  options: Partial<StoreOptions<Item, Item>> = {},
): StateStore<Item> {
  return new StateStore<Item>(directory, { items: () => items, key: (item) => item.id, ...options });
}

/** A new data directory, removed after the test. */
export async function tempStoreDir(): Promise<string> {
  return (dir = await tempDataDir());
}

/** A store over a new data directory (removed after the test) and an empty map of items. */
export async function freshStore(options: Partial<StoreOptions<Item, Item>> = {}) {
  const directory = await tempStoreDir();
  const items = new Map<string, Item>();
  return { directory, items, store: storeOver(directory, items, options) };
}

/** What a restarted service would read. */
export function loadFrom(directory: string) {
  return storeOver(directory).load();
}

/** Sets (or, with `undefined`, removes) an item and saves that change. */
export function change(store: StateStore<Item>, items: Map<string, Item>, id: string, n?: number) {
  if (n === undefined) items.delete(id);
  else items.set(id, { id, n });
  return store.save(id);
}

export async function journalLines(store: StateStore<Item>): Promise<string[]> {
  return (await readFile(store.journal, 'utf8')).split('\n').filter(Boolean);
}

export const byId = (a: Item, b: Item) => a.id.localeCompare(b.id);
