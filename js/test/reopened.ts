// A persistent database (IndexedDB, fake-indexeddb in Node) created with `sql`, closed and opened
// again: its tables are stored and not loaded yet (lazy hydration), as after a page reload.
import 'fake-indexeddb/auto';
import { Database } from 'opticdb';

export async function reopened(sql: string): Promise<Database> {
  const name = `reopened-${Math.random()}`;
  const first = await Database.open({ storage: 'indexeddb', name });
  await first.exec(sql);
  await first.close();
  return Database.open({ storage: 'indexeddb', name });
}
