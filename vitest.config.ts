// Vitest runs the JS package's suites (js/test) against the built package (js/dist, via the
// npm workspace), and the end-to-end suites (e2e/, Chromium via playwright-core): the real wasm
// build, no mocks.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['js/test/**/*.test.{ts,tsx}', 'e2e/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
