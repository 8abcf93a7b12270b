// Native against wasm, bit for bit: feeds the thousand cases of target/parity/cases.json
// (inputs with their native answers, written by `VRAMFIT_WRITE_PARITY=1 cargo test -p vramfit
// --test parity_cases`) to the npm package, in Node or (--browser) in headless Chromium, and
// compares every field exactly. `cargo xtask test` runs both.
//   node crates/xtask/bench/parity.mjs target/npm target/parity/cases.json [--browser]
import { readFileSync } from 'node:fs';
import { join, resolve, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, caller, compareAll, entryOf, findWasm, launchChromium } from './load.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const browser = args.includes('--browser');
const [dir = 'target/npm', casesFile = 'target/parity/cases.json'] = args.filter((a) => !a.startsWith('--'));
const cases = JSON.parse(readFileSync(casesFile, 'utf8'));

function report(where, r) {
  console.log(`parity (${where}, ${r.how}): ${r.same} of ${r.cases} cases identical`);
  for (const f of r.failures) console.log(`  ${f}`);
  if (r.failed > r.failures.length) console.log(`  … and ${r.failed - r.failures.length} more`);
  if (r.failed > 0 || r.cases === 0) process.exit(1);
}

if (!browser) {
  const m = await load(dir);
  report('Node', compareAll(cases, caller(m)));
} else {
  // The page, the package and the cases come from one made-up origin, answered from disk by
  // request interception: nothing listens on a port, and nothing else is reachable.
  const ORIGIN = 'http://parity.vramfit.invalid';
  const pkgDir = resolve(dir);
  const { entry } = entryOf(pkgDir);
  const wasm = relative(pkgDir, findWasm(pkgDir));
  const html = `<!doctype html><meta charset="utf-8"><title>parity</title>
<script type="module">
import * as m from '/pkg/${entry.replace(/^\.\//, '')}';
import { caller, compareAll } from '/compare.mjs';
try {
  if (typeof m.initSync === 'function') m.initSync({ module: await (await fetch('/pkg/${wasm}')).arrayBuffer() });
  else if (typeof m.default === 'function' && !m.estimate) await m.default({ module_or_path: '/pkg/${wasm}' });
  const cases = await (await fetch('/cases.json')).json();
  window.__parity = compareAll(cases, caller(m));
} catch (e) { window.__parity = { error: String(e && e.stack || e) }; }
</script>`;
  const types = { js: 'text/javascript', mjs: 'text/javascript', wasm: 'application/wasm', json: 'application/json', html: 'text/html' };
  const { context, close } = await launchChromium();
  try {
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.origin !== ORIGIN) return route.abort();
      let file;
      if (url.pathname === '/') return route.fulfill({ body: html, contentType: types.html });
      if (url.pathname === '/cases.json') file = resolve(casesFile);
      else if (url.pathname === '/compare.mjs') file = join(here, 'compare.mjs');
      else if (url.pathname.startsWith('/pkg/')) file = join(pkgDir, decodeURIComponent(url.pathname.slice(5)));
      if (!file || (url.pathname.startsWith('/pkg/') && !file.startsWith(pkgDir))) return route.fulfill({ status: 404, body: 'no' });
      try {
        return route.fulfill({ body: readFileSync(file), contentType: types[file.split('.').pop()] || 'application/octet-stream' });
      } catch { return route.fulfill({ status: 404, body: 'no' }); }
    });
    const page = context.pages()[0] || await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${ORIGIN}/`);
    const handle = await page.waitForFunction(() => window.__parity, null, { timeout: 300000 });
    const r = await handle.jsonValue();
    if (r.error) { console.log(`parity (Chromium): ${r.error}`); process.exit(1); }
    for (const e of errors) console.log(`page error: ${e}`);
    report('Chromium', r);
  } finally {
    await close();
  }
}
