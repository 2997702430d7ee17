// The native CLI (build/tools/opticdb, or OPTIC_NATIVE_CLI) for interop checks of the suites that
// write database files.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const repo = fileURLToPath(new URL('../..', import.meta.url));
export const nativeCli = process.env.OPTIC_NATIVE_CLI ?? join(repo, 'build/tools/opticdb');

/** Runs SQL through the native CLI on `path`; fails clearly when the binary was not built. */
export function native(path: string, sql: string): string {
  expect(existsSync(nativeCli), `${nativeCli} is not built (native build: build/, or set OPTIC_NATIVE_CLI)`).toBe(true);
  const r = spawnSync(nativeCli, [path], { input: sql, encoding: 'utf8', timeout: 30_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}
