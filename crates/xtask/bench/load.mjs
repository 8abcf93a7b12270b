// Loads the npm package built by `cargo xtask npm` (target/npm/) in Node, and gives one way to
// call it whatever its exact surface: `estimate(input)` on a plain object (snake_case keys as
// the JSON API has them, or camelCase if the package asks for that), or `estimateJson(text)`
// when the package has it. Answers are normalised to plain JSON-like values (Maps to objects,
// BigInts to numbers, undefined to absent) so that they compare with the native JSON.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The package's ES module entry. */
export function entryOf(dir) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const pick = (e) => (typeof e === 'string' ? e : e && (e.node?.import ?? e.node ?? e.import ?? e.default));
  let entry = pick(pkg.exports?.['.'] ?? pkg.exports) ?? pkg.module ?? pkg.main;
  if (entry && typeof entry !== 'string') entry = pick(entry);
  if (!entry) throw new Error(`${dir}/package.json names no entry (exports, module or main)`);
  return { pkg, entry };
}

export async function load(dir) {
  dir = resolve(dir);
  const { entry } = entryOf(dir);
  const m = await import(pathToFileURL(join(dir, entry)).href);
  // wasm-bindgen `--target web`: instantiate from the bytes.
  if (typeof m.initSync === 'function') {
    const wasm = findWasm(dir);
    m.initSync({ module: readFileSync(wasm) });
  } else if (typeof m.default === 'function' && m.default.length <= 1 && !m.estimate) {
    await m.default();
  }
  return m;
}

/** The package's main module (what its main entry loads): `vramfit_bg.wasm`, or else the
 *  largest .wasm. */
export function findWasm(dir) {
  const found = [];
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop();
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory() && e.name !== 'node_modules') stack.push(p);
      else if (e.name.endsWith('.wasm')) found.push({ p, size: statSync(p).size, main: e.name === 'vramfit_bg.wasm' });
    }
  }
  found.sort((a, b) => b.main - a.main || b.size - a.size);
  if (!found.length) throw new Error(`no .wasm file under ${dir}`);
  return found[0].p;
}

export { caller, plain, diff, camel, snake, compareAll } from './compare.mjs';

/** Headless Chromium with the flags every test here uses (tests/e2e/run.mjs has the same), on a
 *  fresh profile; `close()` ends it and removes the profile. */
export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const profile = mkdtempSync(join(tmpdir(), 'vramfit-bench-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
