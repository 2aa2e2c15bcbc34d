/**
 * Test support for the session repository's tests: repositories over a temporary data directory
 * (removed after each test) and a map of small items, as the manager keeps its sessions, and the files of the
 * earlier layout (a journal of lines beside the state file) as that version left them.
 */
import { readFile } from 'node:fs/promises';
import { afterEach } from 'vitest';
import { JournalRepository, type JournalOptions } from '../server/state/journal-repository.ts';
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

export type Repository = JournalRepository<Item>;

/** A repository over a map of items by id, as the manager keeps its sessions. */
export function storeOver(
  directory: string,
  items = new Map<string, Item>(),
  options: Partial<JournalOptions<Item, Item>> = {},
): Repository {
  return new JournalRepository<Item>(directory, { items: () => items, key: (item) => item.id, ...options });
}

/** A new data directory, removed after the test. */
export async function tempStoreDir(): Promise<string> {
  return (dir = await tempDataDir());
}

/** A repository over a new data directory (removed after the test) and an empty map of items. */
export async function freshStore(options: Partial<JournalOptions<Item, Item>> = {}) {
  const directory = await tempStoreDir();
  const items = new Map<string, Item>();
  return { directory, items, store: storeOver(directory, items, options) };
}

/** What a restarted service would read. */
export function loadFrom(directory: string) {
  return storeOver(directory).load();
}

/** Sets (or, with `undefined`, removes) an item and saves that change. */
export function change(store: Repository, items: Map<string, Item>, id: string, n?: number) {
  if (n === undefined) items.delete(id);
  else items.set(id, { id, n });
  return store.save(id);
}

/** The state file as a restarted service would read it. */
export async function stateFile(store: Repository): Promise<{ generation: number; sessions: Item[] }> {
  return JSON.parse(await readFile(store.files.main, 'utf8'));
}

/** A whole state as the state file holds it, or a line of the earlier layout's journal that holds everything. */
export function wholeLine(generation: number | undefined, sessions: unknown[]): string {
  return JSON.stringify({ version: 1, generation, savedAt: new Date().toISOString(), sessions });
}

/** A line of the earlier layout's journal that holds the records changed since the line before and those gone. */
export function deltaLine(generation: number, put: unknown[], del: string[]): string {
  return JSON.stringify({ version: 1, generation, savedAt: new Date().toISOString(), put, del });
}

export const byId = (a: Item, b: Item) => a.id.localeCompare(b.id);
