// The reverse grid as wasm: `grid(run)` of `vramfit/full` (every preset × every catalog GPU ×
// the formats the run's engine loads, the most precise format that fits per cell), timed in Node
// or (--browser) in headless Chromium, for Hugging Face inference and for llama.cpp. This is the
// computation the site's grid view runs when an input changes; it should fit in one frame.
// Prints one `{"id": …, "ns": …, "cells": …}` line per figure (mean nanoseconds per grid), as
// `cargo xtask bench` reads.
//   node crates/xtask/bench/grid.mjs target/npm [--browser]
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const browser = args.includes('--browser');
const [dir = 'target/npm'] = args.filter((a) => !a.startsWith('--'));
const pkgDir = resolve(dir);

// Runs in Node and in the page alike (passed to the page as text): times each grid for about
// `budgetMs` after a warm-up of a quarter of it.
const timeGrids = (full, budgetMs) => {
  const runs = [['hf', {}], ['llamacpp', { engine: 'llamacpp' }]];
  return runs.map(([name, run]) => {
    const g = full.grid(run);
    const warm = performance.now();
    while (performance.now() - warm < budgetMs / 4) full.grid(run);
    let n = 0;
    const start = performance.now();
    do { full.grid(run); n++; } while (performance.now() - start < budgetMs);
    const ns = ((performance.now() - start) * 1e6) / n;
    return { id: `grid/every-preset-every-gpu/${name}`, ns, runs: n, cells: g.cells.length * g.formats.length };
  });
};

let figures;
if (!browser) {
  const full = await import(pathToFileURL(join(pkgDir, 'full.js')).href);
  figures = timeGrids(full, 2000);
} else {
  // The page and the package from one made-up origin, answered from disk by request
  // interception, as the parity check does: nothing listens on a port.
  const { chromium } = await import('playwright-core');
  const ORIGIN = 'http://grid.vramfit.invalid';
  const html = `<!doctype html><meta charset="utf-8"><title>grid</title>
<script type="module">
try {
  const full = await import('/pkg/full.js');
  window.__grid = (${timeGrids.toString()})(full, 2000);
} catch (e) { window.__grid = { error: String(e && e.stack || e) }; }
</script>`;
  const types = { js: 'text/javascript', wasm: 'application/wasm', json: 'application/json' };
  const profile = mkdtempSync(join(tmpdir(), 'vramfit-grid-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.origin !== ORIGIN) return route.abort();
      if (url.pathname === '/') return route.fulfill({ body: html, contentType: 'text/html' });
      const file = join(pkgDir, decodeURIComponent(url.pathname.replace(/^\/pkg\//, '')));
      if (!url.pathname.startsWith('/pkg/') || !file.startsWith(pkgDir)) return route.fulfill({ status: 404, body: 'no' });
      try {
        return route.fulfill({ body: readFileSync(file), contentType: types[file.split('.').pop()] || 'application/octet-stream' });
      } catch { return route.fulfill({ status: 404, body: 'no' }); }
    });
    const page = context.pages()[0] || await context.newPage();
    await page.goto(`${ORIGIN}/`);
    const handle = await page.waitForFunction(() => window.__grid, null, { timeout: 120000 });
    figures = await handle.jsonValue();
    if (figures.error) { console.error(`grid (Chromium): ${figures.error}`); process.exit(1); }
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
for (const f of figures) console.log(JSON.stringify(f));
