// The web demo: `npm start` serves it (Vite dev server). The opticdb package comes from the
// workspace (js/dist); Vite must not pre-bundle it, or the wasm URL beside the glue is lost.
import { defineConfig } from 'vite';

export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  optimizeDeps: { exclude: ['opticdb', 'opticdb/worker', 'opticdb/lazy'] },
  worker: { format: 'es' },
  build: { target: 'es2022' },
  esbuild: { target: 'es2022' },
  server: { fs: { allow: ['..'] } },
});
