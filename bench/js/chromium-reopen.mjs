// Reopen with 20 materialized views (reopen-workloads.mjs) in Debian's Chromium (playwright-core,
// headless), served by the web demo's Vite config, on a real IndexedDB (LevelDB-backed). The
// crash state is a second connection opening the database while the first never closes.
//
//   node bench/js/chromium-reopen.mjs [--reps N]      (after `npm run build`)
import { evaluateInChromium, here } from './chromium-page.mjs';

const reps = Number(process.argv[process.argv.indexOf('--reps') + 1]) || 3;
console.log(await evaluateInChromium(async ({ module, reps }) => {
  const { runReopen, formatResults } = await import(module);
  const env = {
    fresh: () => ({ storage: 'indexeddb', name: `reopen-${Math.random()}` }),
    crashImage: async (options) => options,
  };
  return formatResults(await runReopen(env, reps), `Chromium ${navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0]}`, reps);
}, { module: `/@fs${here}reopen-workloads.mjs`, reps }));
