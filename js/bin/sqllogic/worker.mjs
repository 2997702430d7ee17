// The worker thread that runs `.sqllogic` files for opticdb-sqllogic.mjs, one at a time, each on
// a fresh Database: the counterpart of the native runner's forked child. It sends {type: 'S'}
// when it starts a file, streams {type: 'P', n} after each passed block and {type: 'R', outcome} with the final outcome; on a
// crash (a wasm trap or any non-engine error) it sends {type: 'crash', message} and exits, since
// the WebAssembly instance may be broken: the driver starts a fresh worker for the next file.
import { parentPort } from 'node:worker_threads';
import { CrashError, runBlocks } from './exec.mjs';

parentPort.on('message', async ({ blocks, timeoutSeconds, module }) => {
  parentPort.postMessage({ type: 'S' });  // the clock starts now, not while the wasm loads
  try {
    const outcome = await runBlocks(blocks, { timeoutSeconds, module }, (n) => parentPort.postMessage({ type: 'P', n }));
    parentPort.postMessage({ type: 'R', outcome });
  } catch (e) {
    const message = e instanceof CrashError ? e.message : `${e?.name ?? 'Error'}: ${e?.message ?? String(e)}`;
    parentPort.postMessage({ type: 'crash', message });
    process.exit(1);
  }
});
