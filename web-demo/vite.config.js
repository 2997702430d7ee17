// The web demo: `npm start` serves it (Vite dev server). The opticdb package comes from the
// workspace (js/dist); Vite must not pre-bundle it, or the wasm URL beside the glue is lost.
// Served cross-origin isolated (COOP + COEP), so the page shares memory with its worker and the
// Stop button reaches a statement while it runs (js/README.md, "Stopping a statement").
import { defineConfig } from 'vite';

const isolated = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  optimizeDeps: { exclude: ['opticdb', 'opticdb/worker', 'opticdb/lazy'] },
  worker: { format: 'es' },
  build: { target: 'es2022' },
  esbuild: { target: 'es2022' },
  server: { fs: { allow: ['..'] }, headers: isolated },
  preview: { headers: isolated },
});
