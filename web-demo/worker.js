// A Web Worker using the package: the e2e test starts it to prove the engine loads off the main
// thread. Answers each message (SQL text) with the rows of its last statement.
import { Database } from 'opticdb';

const db = new Database();
self.onmessage = async (e) => {
  try {
    const rows = [];
    for await (const r of db.eval(e.data)) rows.push(r);
    self.postMessage({ rows });
  } catch (err) {
    self.postMessage({ error: err.message, code: err.code });
  }
};
self.postMessage({ ready: true });
