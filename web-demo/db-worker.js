// The demo's database worker: the engine and the IndexedDB connection live here, so a long query
// never blocks the page. The page opens databases in it with WorkerDatabase.open (main.js).
import { serve } from 'opticdb/worker';

serve();
