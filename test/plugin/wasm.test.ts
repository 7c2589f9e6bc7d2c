/** The committed WebAssembly bytes are what the text files compile to (build/wasm.mjs), byte for byte. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ES module shared with the build
import { WASM_MODULES, wasmModuleText } from '../../build/wasm.mjs';
import { REPO_ROOT } from '../helpers/repo.js';

describe('WebAssembly modules', () => {
  for (const { wat, out } of WASM_MODULES as Array<{ wat: string; out: string }>) {
    it(`${out} is ${wat} compiled`, async () => {
      expect(readFileSync(join(REPO_ROOT, out), 'utf8'), `${out} is stale: run npm run build:wasm and commit it`).toBe(await wasmModuleText(wat));
    });
  }
});
