// End-to-end tests of the built site (dist/) in headless Chromium, driven by playwright-core.
//
// `cargo xtask test` serves dist/ under /vramfit/ (as GitHub Pages does) on a free loopback
// port and runs this file with VRAMFIT_URL set; run it by hand the same way:
//   VRAMFIT_URL=http://127.0.0.1:8080/vramfit/ node tests/e2e/run.mjs [filter]
// Screenshots go to tests/e2e/artifacts/ (git-ignored); with VRAMFIT_UPDATE_SCREENSHOT=1 the
// desktop calculator also replaces docs/screenshot.png.
import { chromium } from 'playwright-core';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, existsSync, readFileSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { hubTests } from './hub.mjs';
import { answerTests } from './answer.mjs';
import { trainingTests } from './training.mjs';
import { linksTests } from './links.mjs';
import { momentsTests } from './moments.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const BASE = process.env.VRAMFIT_URL;
if (!BASE || !BASE.endsWith('/')) {
  console.error('VRAMFIT_URL must be set to the site\'s address, ending in "/" (cargo xtask test sets it)');
  process.exit(2);
}
const ORIGIN = new URL(BASE).origin;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const CLI = process.env.VRAMFIT_CLI || join(root, 'target', 'debug', 'vramfit');
const ARTIFACTS = join(here, 'artifacts');
mkdirSync(ARTIFACTS, { recursive: true });
const FILTER = process.argv[2] || '';

const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
export const VIEWS = ['calc', 'fit', 'models', 'mig', 'diagnose', 'faq', 'device'];

// ---------------------------------------------------------------------------------------------
// A small harness: each test gets a fresh browser profile; results print as `ok`/`FAIL` lines.

const tests = [];
function test(name, fn) { tests.push({ name, fn }); }

class Failure extends Error {}
function assert(cond, msg) { if (!cond) throw new Failure(msg); }
function eq(actual, expected, msg) {
  if (actual !== expected) throw new Failure(`${msg}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

const open = [];
/** A browser with a fresh profile; closed after the test. */
async function browser({ args = [], ...options } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'vramfit-e2e-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...FLAGS, ...args],
    viewport: { width: 1280, height: 900 },
    locale: 'en-US',
    ...options,
  });
  open.push({ context, dir });
  return context;
}

/**
 * A page that records every problem the site may cause: console errors, uncaught exceptions,
 * failed requests, HTTP errors, and any request to another origin.
 */
async function watchedPage(context, { fresh = false } = {}) {
  const page = (!fresh && context.pages()[0]) || await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  context.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  context.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  context.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(ORIGIN + '/') && !u.startsWith('data:') && !u.startsWith('blob:')) problems.push(`foreign request: ${u}`);
  });
  page.problems = problems;
  return page;
}

function noProblems(page, what) {
  assert(page.problems.length === 0, `${what}:\n    ${page.problems.join('\n    ')}`);
}

/** Opens `hash` (e.g. `#/calc?lang=en`) and waits for the app to render its view. */
async function go(page, hash = '', view) {
  await page.goto(BASE + hash);
  await page.waitForSelector(view ? `main[data-view="${view}"]` : 'main[data-view]');
}

async function ready(page) {
  // The service worker has installed and controls the page.
  await page.evaluate(async () => { await navigator.serviceWorker.ready; });
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 15000 });
}

/** The file names of the modules `context` fetches, plain (`.wasm`) or precompressed (`.wasm.gz`), in order. */
function modulesFetched(context) {
  const names = [];
  context.on('request', (r) => {
    if (/\.wasm(\.gz)?$/.test(r.url())) names.push(new URL(r.url()).pathname.split('/').pop());
  });
  return names;
}

const shot = async (page, name) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

const hasHan = (s) => /[\u4e00-\u9fff]/.test(s);

// ---------------------------------------------------------------------------------------------
// The tests.

test('loads with no console error, no failed request, no foreign request', async () => {
  const page = await watchedPage(await browser());
  await go(page);
  await ready(page);
  await page.reload();
  await page.waitForSelector('main[data-view="calc"]');
  eq(await page.locator('h1').first().innerText(), 'Calculator', 'the calculator opens first');
  noProblems(page, 'problems while loading');
});

test('the card select shows the card the address names, or the name no card has beside its error', async () => {
  const page = await watchedPage(await browser());
  await go(page, '#/calc?lang=en&gpu=4090', 'calc');
  await page.waitForSelector('#f-gpu');
  await page.waitForFunction(() => document.querySelector('#f-gpu').value === 'rtx-4090', null, { timeout: 10000 });
  eq(await page.locator('#f-gpu').inputValue(), 'rtx-4090', 'words that name one card select it');
  await go(page, '#/calc?lang=en&gpu=rtx-4060-8gb', 'calc');
  await page.waitForSelector('#f-gpu-err');
  eq(await page.locator('#f-gpu').inputValue(), 'rtx-4060-8gb', 'a name no card has stays in the select');
  assert((await page.locator('#f-gpu-err').innerText()).includes('rtx-4060-8gb'), 'the error names it');
  noProblems(page, 'problems with the card select');
});

test('makes no request outside its origin (request interception)', async () => {
  // Service workers are blocked here so that every request passes through the route.
  const context = await browser({ serviceWorkers: 'block' });
  const seen = [];
  const foreign = [];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    seen.push(u);
    if (new URL(u).origin !== ORIGIN) { foreign.push(u); return route.abort('blockedbyclient'); }
    return route.continue();
  });
  const page = await watchedPage(context);
  for (const v of VIEWS) {
    await go(page, `#/${v}?lang=en`, v);
    await page.waitForTimeout(200);
  }
  assert(seen.length > 0, 'the route saw the requests');
  eq(foreign.length, 0, `foreign requests ${foreign.join(', ')}`);
  noProblems(page, 'problems on the views');
});

test('the first load is the calculator alone; another view or a catalog card hands over to the full build, state kept', async () => {
  // No service worker: it would precache the full build and blur what the page itself asks for.
  const context = await browser({ serviceWorkers: 'block' });
  const wasm = modulesFetched(context);
  const sheets = [];
  context.on('request', (r) => {
    if (/\.css$/.test(r.url())) sheets.push(new URL(r.url()).pathname.split('/').pop());
  });
  const page = await watchedPage(context);
  await go(page, '#/calc?lang=en&batch=3&seq_len=4096', 'calc');
  const before = await shown(page);
  eq(wasm.length, 1, `one module in the first load: ${wasm}`);
  assert(wasm[0].startsWith('vramfit_en_bg-'), `the English calculator's build loads: ${wasm}`);
  assert(wasm[0].endsWith('.wasm.gz'), `its precompressed copy, inflated by the page: ${wasm}`);
  eq(sheets.length, 1, `one style sheet in the first load: ${sheets}`);
  assert(sheets[0].startsWith('style-'), `the calculator's style: ${sheets}`);
  // A link to another view: the full build is fetched and takes over, from the same address,
  // with the style of its views (views.css: a textarea at least 10rem high, 160 px).
  await page.locator('nav a[data-nav="diagnose"]').click();
  await page.waitForSelector('main[data-view="diagnose"] textarea');
  assert(wasm.some((n) => n.startsWith('vramfit_full_bg-')), `the full build loads for Diagnose: ${wasm}`);
  assert(sheets.some((n) => n.startsWith('views-')), `the views' style loads with it: ${sheets}`);
  eq(await page.locator('#diag-text').evaluate((e) => getComputedStyle(e).minHeight), '160px', 'the views\' style applies');
  eq(await page.locator('main').count(), 1, 'one app on the page');
  assert(/batch=3/.test(page.url()) && /seq_len=4096/.test(page.url()), `the inputs stay in the address: ${page.url()}`);
  // Back to the calculator, now in the full build: the same numbers, to the byte.
  await page.locator('nav a[data-nav="calc"]').click();
  await page.waitForSelector('main[data-view="calc"]');
  eq(JSON.stringify(await shown(page)), JSON.stringify(before), 'both builds show the same estimate');
  eq(wasm.filter((n) => n.startsWith('vramfit_full_bg-')).length, 1, 'the full build is fetched once');
  eq(sheets.filter((n) => n.startsWith('views-')).length, 1, 'and the views\' style once');
  // Choosing a config.json on a calculator-only page hands over too, and shows the file chooser.
  const other = await watchedPage(await browser({ serviceWorkers: 'block' }));
  await go(other, '#/calc?lang=zh', 'calc');
  await other.locator('button[data-source="config"]').click();
  await other.locator('#f-config').waitFor({ state: 'attached' });
  assert(/source=config/.test(other.url()), `the choice is in the address: ${other.url()}`);
  eq(await other.evaluate(() => document.documentElement.lang), 'zh-CN', 'the language is kept');
  // Choosing a catalog card hands over too: the card's speed is in the full build's estimate.
  const card = await browser({ serviceWorkers: 'block' });
  const cardWasm = modulesFetched(card);
  const carded = await watchedPage(card);
  await go(carded, '#/calc?lang=en&batch=3&seq_len=4096', 'calc');
  await carded.selectOption('#f-gpu', 'h100-sxm5-80gb');
  await carded.locator('#speed tr[data-key="decode_tokens_per_s"]').waitFor();
  assert(cardWasm.length === 2 && cardWasm[0].startsWith('vramfit_en_bg-') && cardWasm[1].startsWith('vramfit_full_bg-'),
    `the calculator's build, then the full build: ${cardWasm}`);
  assert(/gpu=h100-sxm5-80gb/.test(carded.url()) && /batch=3/.test(carded.url()), `the inputs stay in the address: ${carded.url()}`);
  eq(await carded.inputValue('#f-gpu'), 'h100-sxm5-80gb', 'the card stays chosen');
  eq(await carded.locator('main').count(), 1, 'one app on the page (a card chosen)');
  // Choosing TensorRT-LLM hands over too: its run shape is the full build's.
  const trt = await browser({ serviceWorkers: 'block' });
  const trtWasm = modulesFetched(trt);
  const trted = await watchedPage(trt);
  await go(trted, '#/calc?lang=zh&mode=serve', 'calc');
  await trted.selectOption('#f-engine', 'trtllm');
  await trted.locator('#working tr[data-key="kv_cache"]').waitFor();
  assert(trtWasm.length === 2 && trtWasm[0].startsWith('vramfit_zh_bg-') && trtWasm[1].startsWith('vramfit_full_bg-'),
    `the calculator's build, then the full build: ${trtWasm}`);
  assert(/engine=trtllm/.test(trted.url()), `the engine stays in the address: ${trted.url()}`);
  eq(await trted.evaluate(() => document.documentElement.lang), 'zh-CN', 'the language is kept (TensorRT-LLM)');
  noProblems(trted, 'problems while handing over (TensorRT-LLM)');
  // A link with a training field opens in the calculator build, which has no training fields:
  // the field is carried, not refused, and choosing training hands it to the full build.
  const train = await browser({ serviceWorkers: 'block' });
  const trainWasm = modulesFetched(train);
  const trained = await watchedPage(train);
  await go(trained, '#/calc?lang=en&optimizer=lion&lora_rank=16', 'calc');
  eq(await trained.locator('#link-notice').count(), 0, 'no notice of a bad link for a training field');
  await trained.selectOption('#f-mode', 'training');
  await trained.locator('#f-optimizer').waitFor();
  assert(trainWasm.length === 2 && trainWasm[0].startsWith('vramfit_en_bg-') && trainWasm[1].startsWith('vramfit_full_bg-'),
    `the calculator's build, then the full build: ${trainWasm}`);
  eq(await trained.inputValue('#f-optimizer'), 'lion', "the link's optimizer reaches the training form");
  eq(await trained.inputValue('#f-lora_rank'), '16', "the link's LoRA rank reaches the training form");
  noProblems(trained, 'problems while handing over (training)');
  noProblems(page, 'problems while handing over');
  noProblems(other, 'problems while handing over (config.json)');
  noProblems(carded, 'problems while handing over (a catalog card)');
  // When the full build cannot be fetched, the page says so and the calculator keeps working.
  const cut = await browser({ serviceWorkers: 'block' });
  await cut.route(/vramfit_full_bg-/, (route) => route.abort('internetdisconnected'));
  const off = cut.pages()[0] || await cut.newPage();
  await go(off, '#/calc?lang=en&batch=3&seq_len=4096', 'calc');
  await off.locator('nav a[data-nav="faq"]').click();
  await off.waitForFunction(() => /could not start/.test(document.querySelector('#app .loading')?.textContent || ''));
  await off.locator('nav a[data-nav="calc"]').click();
  await off.waitForSelector('main[data-view="calc"] #total');
  eq(JSON.stringify(await shown(off)), JSON.stringify(before), 'the calculator still computes after a failed hand-over');
});

test('the plain module loads where the precompressed copy cannot be used, with the same numbers', async () => {
  const hash = '#/calc?lang=en&batch=3&seq_len=4096';
  const normal = await watchedPage(await browser({ serviceWorkers: 'block' }));
  await go(normal, hash, 'calc');
  const want = JSON.stringify(await shown(normal));
  noProblems(normal, 'problems with the precompressed module');
  // A browser without DecompressionStream (Safari before 16.4, Firefox before 113) asks for
  // the plain module only.
  const old = await browser({ serviceWorkers: 'block' });
  await old.addInitScript(() => { delete globalThis.DecompressionStream; });
  const oldWasm = modulesFetched(old);
  const oldPage = await watchedPage(old);
  await go(oldPage, hash, 'calc');
  eq(JSON.stringify(await shown(oldPage)), want, 'the plain module shows the same estimate');
  eq(oldWasm.length, 1, `one module: ${oldWasm}`);
  assert(/^vramfit_en_bg-[0-9a-f]+\.wasm$/.test(oldWasm[0]), `the plain module: ${oldWasm}`);
  noProblems(oldPage, 'problems without DecompressionStream');
  // A host that inflates `.gz` files itself hands the page a module that is not gzip any more:
  // the page then fetches the plain module.
  const host = await browser({ serviceWorkers: 'block' });
  await host.route(/\.wasm\.gz$/, async (route) => {
    route.fulfill({ response: await route.fetch({ url: route.request().url().replace(/\.gz$/, '') }) });
  });
  const hostWasm = modulesFetched(host);
  const hostPage = await watchedPage(host);
  const warnings = [];
  hostPage.on('console', (m) => { if (m.type() === 'warning') warnings.push(m.text()); });
  await go(hostPage, hash, 'calc');
  eq(JSON.stringify(await shown(hostPage)), want, 'the fallback shows the same estimate');
  eq(hostWasm.length, 2, `the copy, then the plain module: ${hostWasm}`);
  assert(hostWasm[0].endsWith('.wasm.gz') && hostWasm[1].endsWith('.wasm'), `the copy, then the plain module: ${hostWasm}`);
  assert(warnings.some((w) => /could not be used/.test(w)), `the console says why: ${warnings}`);
  // The page stops reading the copy it cannot inflate (the decompressor's error cancels the
  // download): when that happens before the copy has all arrived, its request ends aborted, as
  // meant. Any other failure is still a problem.
  const meant = (p) => /^request failed: \S+\.wasm\.gz net::ERR_ABORTED$/.test(p);
  hostPage.problems.splice(0, hostPage.problems.length, ...hostPage.problems.filter((p) => !meant(p)));
  noProblems(hostPage, 'problems with a host that inflates .gz');
});

test('the language last shown is kept for the next visit to a link that names none', async () => {
  for (const [code, html] of [['zh', 'zh-CN'], ['en', 'en']]) {
    const context = await browser({ serviceWorkers: 'block' });
    const wasm = modulesFetched(context);
    const page = await watchedPage(context);
    await go(page, `#/calc?lang=${code}`, 'calc');
    eq(await page.evaluate(() => document.documentElement.lang), html, `shown in ${code}`);
    const next = await context.newPage();
    await go(next, '#/calc', 'calc');
    eq(await next.evaluate(() => document.documentElement.lang), html, `the next visit keeps ${code}`);
    assert(wasm.every((n) => n.startsWith(`vramfit_${code}_bg-`)), `the ${code} calculator's build both times: ${wasm}`);
    noProblems(page, 'problems');
  }
});

test('each language has its calculator build: the first load holds one, the menu hands over to the other', async () => {
  const context = await browser({ serviceWorkers: 'block', locale: 'zh-CN' });
  const wasm = modulesFetched(context);
  const page = await watchedPage(context);
  // No lang in the link: the browser's language (Chinese) picks the Chinese build, alone.
  await go(page, '#/calc?batch=3&seq_len=4096', 'calc');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  const zh = await shown(page);
  assert(hasHan(await page.locator('main h1').first().innerText()), 'a Chinese heading');
  eq(wasm.length, 1, `one module: ${wasm}`);
  assert(wasm[0].startsWith('vramfit_zh_bg-'), `the Chinese calculator's build: ${wasm}`);
  // English from the menu: the English build takes over, with the same inputs and numbers.
  await page.selectOption('#lang', 'en');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  await page.waitForSelector('main[data-view="calc"] #total');
  const en = await shown(page);
  assert(!hasHan(await page.locator('main h1').first().innerText()), 'an English heading');
  assert(wasm.length === 2 && wasm[1].startsWith('vramfit_en_bg-'), `then the English build: ${wasm}`);
  assert(/lang=en/.test(page.url()) && /batch=3/.test(page.url()), `the inputs stay in the address: ${page.url()}`);
  eq(en.total, zh.total, 'the same total in both languages');
  eq(JSON.stringify(en.rows), JSON.stringify(zh.rows), 'the same parts in both languages');
  // Back to Chinese: the build that ran before starts again, fetched once.
  await page.selectOption('#lang', 'zh');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  await page.waitForSelector('main[data-view="calc"] #total');
  eq(JSON.stringify(await shown(page)), JSON.stringify(zh), 'the Chinese build again, the same numbers');
  eq(wasm.length, 2, `no module fetched twice: ${wasm}`);
  eq(await page.locator('main').count(), 1, 'one app on the page');
  noProblems(page, 'problems while switching languages');
});

test('boot.js starts the build the app would choose (AppState::build), so no address loads two modules', async () => {
  // [address, browser language, the one module expected]
  const cases = [
    ['#/calc?lang=en', 'zh-CN', 'vramfit_en_bg-'],
    ['#/calc?lang=zh-CN&batch=2', 'en-US', 'vramfit_zh_bg-'],
    ['#/calc?lang=xx', 'zh-CN', 'vramfit_zh_bg-'],
    ['', 'en-GB', 'vramfit_en_bg-'],
    ['#/calc?lang=en&lang=zh', 'en-US', 'vramfit_zh_bg-'],
    ['#/fit?lang=zh', 'zh-CN', 'vramfit_full_bg-'],
    ['#/calc?lang=en&source=config', 'en-US', 'vramfit_full_bg-'],
    ['#/calc?lang=zh&source=hub&model=Qwen%2FQwen3-0.6B-FP8', 'en-US', 'vramfit_full_bg-'],
    ['#/calc?lang=en&gpu=h100-sxm5-80gb', 'zh-CN', 'vramfit_full_bg-'],
    ['#/calc?lang=zh&gpu=&gpu_memory=24GB', 'en-US', 'vramfit_zh_bg-'],
    // Images are the full build's (vramfit's `vision` feature); none is the calculator's.
    ['#/calc?lang=en&model=google%2Fgemma-3-4b-it&images=2', 'en-US', 'vramfit_full_bg-'],
    ['#/calc?lang=en&model=google%2Fgemma-3-4b-it&images=0', 'en-US', 'vramfit_en_bg-'],
    // A host memory is read for the speed under offload (vramfit's `speed`): the full build's.
    ['#/calc?lang=en&engine=llamacpp&host_memory=ddr5-6000-2ch', 'en-US', 'vramfit_full_bg-'],
    ['#/calc?lang=zh&engine=ollama&host_bandwidth=80GB%2Fs', 'en-US', 'vramfit_full_bg-'],
    ['#/calc?lang=zh&engine=ollama&host_bandwidth=', 'en-US', 'vramfit_zh_bg-'],
  ];
  for (const [hash, locale, want] of cases) {
    const context = await browser({ serviceWorkers: 'block', locale });
    const wasm = modulesFetched(context);
    const page = await watchedPage(context);
    await go(page, hash);
    await page.waitForSelector('main[data-view] h1');
    await page.waitForTimeout(300);
    eq(wasm.length, 1, `${hash} in ${locale}: one module (${wasm})`);
    assert(wasm[0].startsWith(want), `${hash} in ${locale}: ${want}… (${wasm})`);
    noProblems(page, `${hash} in ${locale}`);
    await context.close();
  }
});

test('every view renders in English and in Chinese, with the language from the browser', async () => {
  const page = await watchedPage(await browser());
  for (const v of VIEWS) {
    await go(page, `#/${v}?lang=en`, v);
    const en = await page.locator('main h1').first().innerText();
    assert(en.length > 0 && !hasHan(en), `${v}: English heading "${en}"`);
    eq(await page.getAttribute('html', 'lang'), 'en', `${v}: <html lang>`);
    await go(page, `#/${v}?lang=zh`, v);
    await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    const zh = await page.locator('main h1').first().innerText();
    assert(hasHan(zh), `${v}: Chinese heading "${zh}"`);
    const nav = await page.locator('nav.views').innerText();
    assert(hasHan(nav), `${v}: Chinese menu`);
  }
  // No lang in the link: the browser's language decides.
  const zhContext = await browser({ locale: 'zh-CN' });
  const zhPage = await watchedPage(zhContext);
  await go(zhPage, '#/faq', 'faq');
  await zhPage.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  assert((await zhPage.url()).includes('lang=zh'), 'the URL records the language');
  // Switching language from the menu.
  await zhPage.selectOption('#lang', 'en');
  await zhPage.waitForFunction(() => document.documentElement.lang === 'en');
  assert(!hasHan(await zhPage.locator('main h1').first().innerText()), 'switched to English');
  noProblems(page, 'problems');
  noProblems(zhPage, 'problems');
});

test('a malformed link opens with defaults and a visible notice', async () => {
  const page = await watchedPage(await browser());
  await go(page, '#/nowhere?lang=en&bogus=1&mode=flying', 'calc');
  const notice = page.locator('#link-notice');
  await notice.waitFor();
  const text = await notice.innerText();
  assert(text.includes('bogus') && text.includes('mode') && text.includes('nowhere'), `notice: ${text}`);
  await notice.locator('button').click();
  await notice.waitFor({ state: 'detached' });
  noProblems(page, 'problems');
});

test('works offline after one visit (service worker)', async () => {
  const context = await browser();
  const page = await watchedPage(context);
  await go(page, '#/faq?lang=en', 'faq');
  await ready(page);
  // One cache, named after this build's version (a new build's worker deletes the old one).
  const caches = await page.evaluate(async () => ({
    keys: await caches.keys(),
    version: document.querySelector('meta[name="vramfit-version"]').content,
  }));
  eq(JSON.stringify(caches.keys), JSON.stringify([`vramfit-${caches.version}`]), 'the versioned cache');
  // Each module once, as this browser loads it: the precompressed copy, not the plain module too.
  const cached = await page.evaluate(async () => (await (await caches.open((await caches.keys())[0])).keys())
    .map((r) => new URL(r.url).pathname.split('/').pop()).filter((n) => /\.wasm(\.gz)?$/.test(n)).sort());
  eq(cached.length, 3, `three modules precached: ${cached}`);
  assert(cached.every((n) => n.endsWith('.wasm.gz')), `only their precompressed copies: ${cached}`);
  await context.setOffline(true);
  page.problems.length = 0;
  await page.reload();
  await page.waitForSelector('main[data-view="faq"]');
  await go(page, '#/calc?lang=zh', 'calc');
  assert(hasHan(await page.locator('main h1').first().innerText()), 'offline, another view in Chinese');
  noProblems(page, 'problems offline');
  await context.setOffline(false);
});

test('WebGPU without an adapter says so plainly and guesses no memory', async () => {
  const page = await watchedPage(await browser());
  await go(page, '#/device?lang=en', 'device');
  const status = page.locator('#webgpu-status:not([data-state="asking"])');
  await status.waitFor();
  const state = await status.getAttribute('data-state');
  assert(state === 'no-adapter' || state === 'no-api', `state ${state}`);
  const text = await status.innerText();
  assert(/no adapter|no WebGPU/i.test(text), `says so: ${text}`);
  noProblems(page, 'problems');
});

test('WebGPU with --enable-unsafe-webgpu shows the (fallback) adapter', async () => {
  const page = await watchedPage(await browser({ args: ['--enable-unsafe-webgpu'] }));
  await go(page, '#/device?lang=en', 'device');
  const status = page.locator('#webgpu-status:not([data-state="asking"])');
  await status.waitFor();
  eq(await status.getAttribute('data-state'), 'adapter', 'an adapter');
  const vendor = await page.locator('#gpu-vendor').innerText();
  assert(vendor.length > 0, 'vendor shown');
  const limits = await page.locator('#gpu-limits dt').count();
  assert(limits > 0, 'limits shown');
  const mem = await page.locator('#gpu-memory').innerText();
  assert(/not reported/i.test(mem), `memory not guessed: ${mem}`);
  // Chromium may warn about the software adapter on the console; that is the browser, not us.
  page.problems = page.problems.filter((p) => !/WebGPU|SwiftShader|adapter/i.test(p));
  noProblems(page, 'problems');
});

// ---------------------------------------------------------------------------------------------
// The calculator against the CLI: the same inputs must give the same bytes.

/** The CLI's flags for the calculator's URL parameters (the estimator's field names). */
function cliArgs(params) {
  const p = new URLSearchParams(params);
  const args = ['estimate', '--json'];
  const source = p.get('source') || 'preset';
  if (source === 'preset') args.push('--model', p.get('model') || 'meta-llama/Llama-3.1-8B');
  for (const [k, v] of p) {
    if (['lang', 'source', 'model', 'config'].includes(k)) continue;
    if (k === 'params') { if (source === 'params') args.push('--params', v); continue; }
    if (k === 'qlora' || k === 'fused_optimizer') { if (v === 'true') args.push('--' + k.replace(/_/g, '-')); continue; }
    if (k === 'cuda_graphs') { if (v === 'false') args.push('--enforce-eager'); continue; }
    if (k === 'logits') { if (v === 'all') args.push('--all-logits'); continue; }
    if (k === 'grad_checkpointing') { args.push('--checkpointing', v); continue; }
    args.push('--' + k.replace(/_/g, '-'), v);
  }
  return args;
}

function cli(args) {
  return JSON.parse(execFileSync(CLI, args, { encoding: 'utf8' }));
}

/** The page's `15.0 GiB`, as web/src/format.rs writes it. */
function gib(bytes) {
  const g = bytes / 2 ** 30;
  if (bytes === 0) return '0 GiB';
  if (g >= 1000) return `${Math.round(g).toLocaleString('en-US')} GiB`;
  if (g >= 100) return `${g.toFixed(0)} GiB`;
  if (g >= 10) return `${g.toFixed(1)} GiB`;
  if (g >= 0.01) return `${g.toFixed(2)} GiB`;
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

async function shown(page) {
  await page.waitForSelector('#total');
  const bytes = async (sel) => Number(await page.getAttribute(sel, 'data-bytes'));
  const rows = await page.$$eval('#working tr[data-key]', (trs) => trs.map((tr) => [tr.dataset.key, Number(tr.dataset.bytes)]));
  return {
    total: await bytes('#total'),
    totalText: await page.locator('#total .v').innerText(),
    peak: await bytes('#peak'),
    recommended: await bytes('#recommended'),
    quickRec: await bytes('#quick-rec'),
    rows,
  };
}

function sameAsCli(s, e, what) {
  eq(s.total, e.total_bytes, `${what}: total`);
  eq(s.totalText, gib(e.total_bytes), `${what}: total as shown`);
  eq(s.peak, e.peak_allocated_bytes, `${what}: peak allocated`);
  eq(s.recommended, e.recommended_bytes, `${what}: recommended`);
  eq(s.quickRec, e.quick.recommended_bytes, `${what}: quick M_rec`);
  eq(JSON.stringify(s.rows), JSON.stringify(e.components.map((c) => [c.key, c.bytes])), `${what}: components`);
}

async function noNonsense(page) {
  const text = await page.locator('body').innerText();
  // ("Infinity Fabric" is AMD's interconnect, a name in the catalog.)
  const bad = text.match(/\bNaN\b|\bInfinity\b(?! Fabric)|(^|[\s(])-\d+(\.\d+)? (GiB|GB|MiB)/m);
  assert(!bad, `NaN, Infinity or a negative size on the page: ${bad && bad[0]}`);
}

const SCENARIOS = [
  '',
  'mode=training&batch=4&seq_len=1024&grad_checkpointing=full&lora_rank=16',
  'mode=training&source=params&params=7B&dtype=fp16&optimizer=adamw-8bit&zero=3&gpus=4',
  'mode=serve&model=Qwen/Qwen2.5-7B-Instruct&gpu_memory=80GB&max_model_len=8192',
  'source=params&params=70B&quantization=awq&batch=8&seq_len=4096',
  'engine=llamacpp&quantization=gguf-q4_k_m&model=meta-llama/Llama-3.2-3B&seq_len=8192',
  'mode=training&model=Qwen/Qwen3-8B&qlora=true&lora_rank=64&lora_targets=all-linear&gpu_memory=24GB',
  'mode=serve&engine=trtllm&model=meta-llama/Llama-3.1-8B&gpu_memory=80GB&max_model_len=8192&free_gpu_memory_fraction=0.8',
];

test('calculator numbers equal the CLI\'s for the same inputs', async () => {
  const page = await watchedPage(await browser());
  for (const q of SCENARIOS) {
    await go(page, `#/calc?lang=en${q ? '&' + q : ''}`, 'calc');
    const s = await shown(page);
    sameAsCli(s, cli(cliArgs(q)), q || 'defaults');
    await noNonsense(page);
  }
  noProblems(page, 'problems');
});

test('inputs set on the page go to the URL, and the shared link reopens them exactly', async () => {
  const context = await browser();
  const page = await watchedPage(context);
  await go(page, '#/calc?lang=en', 'calc');
  await page.selectOption('#f-mode', 'training');
  await page.fill('#f-batch', '2');
  await page.fill('#f-seq_len', '512');
  await page.selectOption('#f-grad_checkpointing', 'selective');
  await page.locator('button[data-source="params"]').click();
  await page.fill('#f-params', '13B');
  await page.waitForFunction(() => location.hash.includes('params=13B'));
  const url = page.url();
  for (const part of ['mode=training', 'batch=2', 'seq_len=512', 'grad_checkpointing=selective', 'source=params']) {
    assert(url.includes(part), `the URL has ${part}: ${url}`);
  }
  const before = await shown(page);
  sameAsCli(before, cli(cliArgs(new URL(url).hash.split('?')[1])), 'set on the page');
  const other = await watchedPage(await browser());
  await other.goto(url);
  const after = await shown(other);
  eq(JSON.stringify(after), JSON.stringify(before), 'the same numbers from the link');
  eq(await other.inputValue('#f-params'), '13B', 'params restored');
  eq(await other.inputValue('#f-mode'), 'training', 'mode restored');
  eq(await other.inputValue('#f-grad_checkpointing'), 'selective', 'checkpointing restored');
  noProblems(page, 'problems');
  noProblems(other, 'problems');
});

test('bad input shows the estimator\'s error next to the field, never a crash', async () => {
  const page = await watchedPage(await browser());
  await go(page, '#/calc?lang=en', 'calc');
  for (const [field, value, expect] of [['batch', '0', /batch.*integer from 1/], ['seq_len', 'abc', /seq_len.*not a number/], ['batch', '1e30', /batch.*integer from 1/], ['seq_len', '-5', /seq_len/]]) {
    await page.fill(`#f-${field}`, value);
    const err = page.locator(`#f-${field}-err`);
    await err.waitFor();
    assert(expect.test(await err.innerText()), `${field}=${value}: ${await err.innerText()}`);
    eq(await page.getAttribute(`#f-${field}`, 'aria-invalid'), 'true', 'marked invalid');
    await page.locator('#calc-error').waitFor();
    await noNonsense(page);
    await page.fill(`#f-${field}`, field === 'batch' ? '1' : '2048');
    await page.waitForSelector('#total');
  }
  await page.locator('button[data-source="params"]').click();
  await page.fill('#f-params', 'lots');
  assert(/params/.test(await page.locator('#calc-error').innerText()), 'params error');
  await go(page, '#/calc?lang=zh&batch=0', 'calc');
  // In Chinese, the problem and the accepted range too, not only the frame around them.
  eq(await page.locator('#f-batch-err').innerText(), 'batch：0 超出范围。可接受：整数，从 1 到 1048576。', 'the error in Chinese too');
  noProblems(page, 'problems');
});

test('typing is not an error: a half-typed value keeps the last result, the error comes after a pause', async () => {
  for (const [lang, hint] of [['en', /Still typing/], ['zh', /还在输入/]]) {
    const page = await watchedPage(await browser());
    await go(page, `#/calc?lang=${lang}&batch=16`, 'calc');
    const before = await page.getAttribute('#total', 'data-bytes');
    // A model name half typed ("Qwen3-3" on the way to "Qwen3-32B") names no preset yet: the last
    // result stays, with a quiet hint.
    const modelErr = page.locator('.field:has(#f-model) .err');
    await page.fill('#f-model', 'Qwen3-3');
    await page.locator('#calc-typing').waitFor();
    assert(hint.test(await page.locator('#calc-typing').innerText()), `the typing hint in ${lang}`);
    eq(await page.getAttribute('#total', 'data-bytes'), before, 'the last result stays while typing');
    eq(await page.locator('#calc-error').count(), 0, 'no error while typing');
    eq(await modelErr.count(), 0, 'no field error while typing');
    // A pause: the error, and the last result kept beneath it, marked as the last one.
    await page.locator('#calc-error').waitFor();
    await modelErr.waitFor();
    await page.locator('#calc-last').waitFor();
    eq(await page.getAttribute('#total', 'data-bytes'), before, 'the last result kept under the error');
    await page.fill('#f-model', 'Qwen/Qwen3-32B');
    await page.waitForFunction((b) => document.querySelector('#total')?.dataset.bytes !== b && !document.querySelector('#calc-typing'), before);
    eq(await page.locator('[data-stale="true"]').count(), 0, 'a complete input shows its own result');
    noProblems(page, 'problems');
  }
});

test('a dropped config.json is read locally and estimated like the CLI reads it', async () => {
  const config = {
    model_type: 'llama', vocab_size: 32000, hidden_size: 2048, intermediate_size: 5632,
    num_hidden_layers: 22, num_attention_heads: 32, num_key_value_heads: 4,
    max_position_embeddings: 2048, torch_dtype: 'bfloat16', tie_word_embeddings: false,
  };
  const file = join(mkdtempSync(join(tmpdir(), 'vramfit-cfg-')), 'config.json');
  writeFileSync(file, JSON.stringify(config, null, 2));
  const page = await watchedPage(await browser());
  await go(page, '#/calc?lang=en&batch=2', 'calc');
  await page.locator('button[data-source="config"]').click();
  await page.setInputFiles('#f-config', file);
  await page.locator('#config-info').waitFor();
  assert(/llama/.test(await page.locator('#config-info').innerText()), 'model_type shown');
  const s = await shown(page);
  sameAsCli(s, cli(['estimate', '--json', '--model', file, '--batch', '2']), 'config.json');
  // The config travels in the link.
  const other = await watchedPage(await browser());
  await other.goto(page.url());
  eq((await shown(other)).total, s.total, 'the config from the link');
  // A broken file shows the parser's error, not a crash.
  const broken = join(dirname(file), 'broken.json');
  writeFileSync(broken, '{"model_type": "llama", "hidden_size": -1');
  await page.setInputFiles('#f-config', broken);
  await page.locator('#calc-error').waitFor();
  assert(/config\.json/.test(await page.locator('#calc-error').innerText()), 'the error names config.json');
  // An empty file says so (it read as "no config.json loaded").
  const empty = join(dirname(file), 'empty.json');
  writeFileSync(empty, '');
  await page.setInputFiles('#f-config', empty);
  await page.locator('#header-error').waitFor();
  assert(/empty/.test(await page.locator('#header-error').innerText()), 'the empty file named as such');
  noProblems(page, 'problems');
});

// A safetensors file as Hugging Face writes it: 8 bytes of header length, the JSON header, then
// the tensors' bytes (here a hole: the file is sparse, so a "10 GiB" checkpoint costs nothing).
function safetensorsFile(path, tensors, size) {
  const header = {};
  let offset = 0;
  for (const [name, shape] of tensors) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 2;
    header[name] = { dtype: 'BF16', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const json = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  writeFileSync(path, Buffer.concat([len, json]));
  truncateSync(path, size);
}

test('a dropped .safetensors or .gguf is read by its header alone, even a 10 GiB file', async () => {
  // TinyLlama's layout (the config.json of the test above): the header must give the estimate
  // that the CLI gives for that config.json.
  const config = {
    model_type: 'llama', vocab_size: 32000, hidden_size: 2048, intermediate_size: 5632,
    num_hidden_layers: 22, num_attention_heads: 32, num_key_value_heads: 4,
    max_position_embeddings: 2048, torch_dtype: 'bfloat16', tie_word_embeddings: false,
  };
  const dir = mkdtempSync(join(tmpdir(), 'vramfit-weights-'));
  const cfg = join(dir, 'config.json');
  writeFileSync(cfg, JSON.stringify(config));
  const tensors = [['model.embed_tokens.weight', [32000, 2048]]];
  for (let l = 0; l < 22; l++) {
    const p = `model.layers.${l}.`;
    tensors.push([`${p}self_attn.q_proj.weight`, [2048, 2048]], [`${p}self_attn.k_proj.weight`, [256, 2048]],
      [`${p}self_attn.v_proj.weight`, [256, 2048]], [`${p}self_attn.o_proj.weight`, [2048, 2048]],
      [`${p}mlp.gate_proj.weight`, [5632, 2048]], [`${p}mlp.up_proj.weight`, [5632, 2048]],
      [`${p}mlp.down_proj.weight`, [2048, 5632]], [`${p}input_layernorm.weight`, [2048]],
      [`${p}post_attention_layernorm.weight`, [2048]]);
  }
  tensors.push(['model.norm.weight', [2048]], ['lm_head.weight', [32000, 2048]]);
  const file = join(dir, 'model.safetensors');
  safetensorsFile(file, tensors, 10 * 2 ** 30);
  // TinyLlama-1.1B's published count: 1,100,048,384 parameters.
  const params = tensors.reduce((a, [, shape]) => a + shape.reduce((x, y) => x * y, 1), 0);
  eq(params, 1_100_048_384, 'the layout written is TinyLlama-1.1B');

  const page = await watchedPage(await browser());
  await go(page, '#/calc?lang=en&batch=2', 'calc');
  await page.locator('button[data-source="config"]').click();
  await page.setInputFiles('#f-config', file);
  await page.locator('#header-info').waitFor();
  eq(Number(await page.getAttribute('#header-info', 'data-params')), params, 'parameters from the header');
  const info = await page.locator('#header-info').innerText();
  assert(/safetensors header only \(.* of 10\.00 GiB\): 201 tensors, 1,100,048,384 parameters/.test(info), `header info: ${info}`);
  await page.locator('#config-info').waitFor();
  const s = await shown(page);
  sameAsCli(s, cli(['estimate', '--json', '--model', cfg, '--batch', '2']), 'the header against config.json');
  // The model travels in the link (the file does not).
  const other = await watchedPage(await browser());
  await other.goto(page.url());
  eq((await shown(other)).total, s.total, 'the header model from the link');
  noProblems(other, 'problems');

  // GGUF: a Qwen2-style Q4_K_M header (the fuzz seed), in Chinese.
  await go(page, '#/calc?lang=zh', 'calc');
  await page.locator('button[data-source="config"]').click();
  const gguf = join(dir, 'qwen2.gguf');
  writeFileSync(gguf, readFileSync(join(root, 'fuzz', 'seeds', 'gguf', 'qwen2-untied')));
  truncateSync(gguf, 3 * 2 ** 30);
  await page.setInputFiles('#f-config', gguf);
  await page.locator('#header-info').waitFor();
  // Vocab 1,000, width 128, 3 blocks (K/V width 64, FFN 256, q/k/v biases), untied output.
  const block = 2 * 128 + 128 * 128 + 128 + 2 * (128 * 64 + 64) + 128 * 128 + 3 * 128 * 256;
  eq(Number(await page.getAttribute('#header-info', 'data-params')), 2 * 1000 * 128 + 3 * block + 128, 'GGUF parameters');
  assert(hasHan(await page.locator('#header-info').innerText()), 'the summary in Chinese');
  assert(/gguf \(qwen2\)/.test(await page.locator('#config-info').innerText()), 'the architecture named');
  await page.waitForSelector('#total');

  // A header that claims more than the file holds: the parser's message, no crash.
  const bad = join(dir, 'bad.safetensors');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(1000000n);
  writeFileSync(bad, Buffer.concat([len, Buffer.from('{"a":')]));
  await page.setInputFiles('#f-config', bad);
  await page.locator('#header-error').waitFor();
  assert(/safetensors/.test(await page.locator('#header-error').innerText()), 'the error names safetensors');
  noProblems(page, 'problems');
  rmSync(dir, { recursive: true, force: true });
});

test('what-ifs re-run the estimator, and applying one sets its inputs', async () => {
  const page = await watchedPage(await browser());
  // The what-ifs and the context chart are the full build's, which a catalog card loads.
  await go(page, '#/calc?lang=en&mode=training&batch=8&gpu=h100-sxm5-80gb', 'calc');
  await page.locator('#whatif').waitFor();
  const base = await shown(page);
  const cards = page.locator('#whatif .card');
  assert(await cards.count() >= 3, 'several what-ifs');
  // Each says what it costs in speed (guide §5.1), in the page's language.
  const speeds = await page.$$eval('#whatif .card .speed', (els) => els.map((e) => e.textContent));
  eq(speeds.length, await cards.count(), 'a speed line per what-if');
  assert(speeds.every((t) => /^Speed: ./.test(t)), `speed lines: ${speeds.join(' | ')}`);
  const ck = page.locator('#whatif .card[data-whatif="whatif.checkpointing"]');
  const expect = Number(await ck.getAttribute('data-bytes'));
  assert(expect < base.total, 'checkpointing saves memory');
  await ck.locator('button').click();
  await page.waitForFunction(() => location.hash.includes('grad_checkpointing=full'));
  const after = await shown(page);
  eq(after.total, expect, 'the applied what-if is what the card said');
  sameAsCli(after, cli(cliArgs('mode=training&batch=8&gpu=h100-sxm5-80gb&grad_checkpointing=full')), 'after applying');
  eq(await page.locator('svg.chart path.series').count(), 1, 'the context chart is drawn');
  noProblems(page, 'problems');
});

// ---------------------------------------------------------------------------------------------
// The other views, against the CLI where it has the same command.

test('Fit & rent lists the same cheapest options as `vramfit recommend`', async () => {
  const page = await watchedPage(await browser());
  for (const [q, extra] of [['', []], ['mode=training&model=Qwen/Qwen2.5-7B-Instruct&lora_rank=16', []], ['source=params&params=70B&currency=CNY', ['--currency', 'CNY']]]) {
    await go(page, `#/fit?lang=en${q ? '&' + q : ''}`, 'fit');
    await page.locator('#offers tbody tr').first().waitFor();
    const rows = await page.$$eval('#offers tbody tr', (trs) => trs.slice(0, 5).map((tr) => [tr.dataset.offer, Number(tr.dataset.perGpu), Number(tr.dataset.price)]));
    const args = cliArgs(q.replace(/&?currency=CNY/, ''));
    args[0] = 'recommend';
    const r = cli([...args, '--limit', '0', ...extra]);
    const want = r.options.slice(0, 5).map((o) => [o.offer, o.per_gpu_bytes, o.price_per_hour]);
    eq(JSON.stringify(rows.map(([o, b, p]) => [o, b, p.toFixed(6)])), JSON.stringify(want.map(([o, b, p]) => [o, b, p.toFixed(6)])), `offers for ${q || 'defaults'}`);
    assert(await page.locator('#cards tr[data-fits="true"]').count() > 0, 'some card fits');
    await noNonsense(page);
  }
  // With a card chosen: the largest batch and context on it.
  await go(page, '#/fit?lang=en&gpu=rtx-4090', 'fit');
  const largest = await page.locator('#largest').innerText();
  assert(/Largest batch that fits: \d+/.test(largest) && /Longest sequence that fits: [\d,]+ tokens/.test(largest), largest);
  noProblems(page, 'problems');
});

test('Fit & rent ranks a whole job as `vramfit recommend --per-job`, in both languages', async () => {
  const page = await watchedPage(await browser());
  for (const lang of ['en', 'zh']) {
    await go(page, `#/fit?lang=${lang}&job=${encodeURIComponent('1M tokens')}`, 'fit');
    await page.locator('#jobs tbody tr').first().waitFor();
    const rows = await page.$$eval('#jobs tbody tr', (trs) => trs.slice(0, 5).map((tr) => [tr.dataset.offer, Number(tr.dataset.cost), Number(tr.dataset.tokensPerS)]));
    const r = cli(['recommend', '--model', 'meta-llama/Llama-3.1-8B', '--per-job', '1M tokens', '--limit', '5', '--json']);
    eq(JSON.stringify(rows), JSON.stringify(r.jobs.map((j) => [j.option.offer, j.cost, j.tokens_per_s])), `${lang}: the cheapest jobs`);
  }
  // A training run's job is an epoch: tokens alone are refused with the field named.
  await go(page, '#/fit?lang=en&mode=training&job=1M', 'fit');
  await page.locator('#job-error').waitFor();
  assert((await page.locator('#job-error').innerText()).includes('epoch'), 'the error says what a training job is');
  noProblems(page, 'problems');
});

test('the calculator shows the speed on its card, as `vramfit estimate` computes it, in both languages', async () => {
  const page = await watchedPage(await browser());
  for (const lang of ['en', 'zh']) {
    await go(page, `#/calc?lang=${lang}&gpu=h100-sxm5-80gb`, 'calc');
    await page.locator('#speed tr[data-key="decode_tokens_per_s"]').waitFor();
    const e = cli(cliArgs('gpu=h100-sxm5-80gb'));
    const t = e.throughput;
    const shownRate = await page.locator('#speed tr[data-key="decode_tokens_per_s"] td.num').innerText();
    // web/src/components/speed.rs writes a rate under 100 to a tenth, above it to the unit.
    const want = t.decode_tokens_per_s >= 100 ? Math.round(t.decode_tokens_per_s).toLocaleString('en-US') : t.decode_tokens_per_s.toFixed(1);
    eq(shownRate, `${want} tokens/s`, `${lang}: the batch's generation speed`);
    const working = await page.locator('#speed tr[data-key="time_to_first_token_s"] .formula').innerText();
    const f = t.formulas.find((x) => x.key === 'time_to_first_token_s');
    eq(working, lang === 'zh' ? f.zh : f.en, `${lang}: the working of the first token's time`);
  }
  // No catalog card, no speed panel.
  await go(page, '#/calc?lang=en&gpu_memory=24GB', 'calc');
  await page.locator('#total').waitFor();
  eq(await page.locator('#speed').count(), 0, 'no speed without a catalog card');
  noProblems(page, 'problems');
});

test('vLLM speculative decoding: the drafter and the speed with drafting, as `vramfit estimate` computes them, in both languages', async () => {
  const page = await watchedPage(await browser());
  const q = 'mode=serve&engine=vllm&gpu=h100-sxm5-80gb&speculative_method=eagle&num_speculative_tokens=3&acceptance_rate=0.8';
  const e = cli(cliArgs(q));
  const drafter = e.components.find((c) => c.key === 'drafter');
  assert(drafter, 'the CLI counts the drafter');
  for (const lang of ['en', 'zh']) {
    await go(page, `#/calc?lang=${lang}&${q}`, 'calc');
    const row = page.locator('#speed tr[data-key="speculative_decode_tokens_per_s"]');
    await row.waitFor();
    eq(await page.getAttribute('tr[data-key="drafter"]', 'data-bytes'), String(drafter.bytes), `${lang}: the drafter's bytes`);
    const t = e.throughput;
    const x = t.speculative_decode_tokens_per_s;
    const want = x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1);
    eq(await row.locator('td.num').innerText(), `${want} tokens/s`, `${lang}: the batch's generation speed with drafting`);
    const f = t.formulas.find((y) => y.key === 'speculative_decode_tokens_per_s');
    eq(await row.locator('.formula').innerText(), lang === 'zh' ? f.zh : f.en, `${lang}: its working`);
  }
  noProblems(page, 'problems');
});

test('Which models fit lists what `vramfit fits` does, on the card and on every card', async () => {
  const page = await watchedPage(await browser());
  // No card yet: the view asks for one, and a card chosen here is the calculator's card.
  await go(page, '#/models?lang=en&engine=llamacpp', 'models');
  await page.locator('#models-no-card').waitFor();
  await page.locator('#models-gpu').selectOption('rtx-4090');
  await page.waitForFunction(() => location.hash.includes('gpu=rtx-4090'));
  await page.locator('#models-table tbody tr').first().waitFor();
  const rows = await page.$$eval('#models-table tbody tr', (trs) => trs.map((tr) => [tr.dataset.model, Number(tr.dataset.bytes)]));
  const fits = cli(['fits', '--gpu', 'rtx-4090', '--engine', 'llamacpp', '--json']);
  const best = fits.filter((r) => r.best).map((r) => [r.model, r.required_bytes]);
  eq(JSON.stringify(rows), JSON.stringify(best), 'one row per model: its best format, what it needs');
  // Every card: the grid's column of a card holds each model's best format on it.
  await page.locator('#cards-all').check();
  await page.waitForFunction(() => location.hash.includes('cards=all'));
  await page.locator('#models-grid tbody tr').first().waitFor();
  const column = await page.$$eval('#models-grid', (tables) => {
    const t = tables[0];
    const col = [...t.querySelectorAll('thead th')].findIndex((th) => th.dataset.gpu === 'h100-sxm5-80gb');
    return [...t.querySelectorAll('tbody tr')].map((tr) => [tr.dataset.model, tr.children[col].dataset.q]);
  });
  const h100 = cli(['fits', '--gpu', 'h100-sxm5-80gb', '--engine', 'llamacpp', '--all', '--json']);
  const formats = ['F16', 'Q8_0', 'Q6_K', 'Q5_K_M', 'Q4_K_M', 'Q3_K_M'];
  for (const [model, q] of column) {
    const b = h100.find((r) => r.model === model && r.best);
    eq(q, b ? String(formats.indexOf(b.format.file_type)) : '', `${model} on the H100`);
  }
  noProblems(page, 'problems');
});

/** The decision matrix as shown: [platform, rank, total, scores] per row. */
async function matrixRows(page) {
  await page.locator('#matrix tbody tr').first().waitFor();
  return page.$$eval('#matrix tbody tr', (trs) => trs.map((tr) => [tr.dataset.platform, Number(tr.dataset.rank), Number(tr.dataset.total), tr.dataset.scores]));
}

function matrixLikeCli(rows, weights, what) {
  const r = cli(['platforms', '--json', '--weights', weights]);
  eq(JSON.stringify(rows), JSON.stringify(r.platforms.map((p) => [p.platform, p.rank, p.total, p.scores.join(',')])), `${what}: ranking, totals and scores`);
  return r;
}

test('the decision matrix ranks and totals as `vramfit platforms` for the same weights, in English and Chinese', async () => {
  const page = await watchedPage(await browser());
  for (const lang of ['en', 'zh']) {
    for (const w of ['', 'memory=3,support=0', 'billing=10,slicing=5,interconnect=0', 'frameworks=100']) {
      await go(page, `#/fit?lang=${lang}${w ? '&weights=' + encodeURIComponent(w) : ''}`, 'fit');
      const r = matrixLikeCli(await matrixRows(page), w, `${lang} ${w || 'equal weights'}`);
      // The totals as written on the page, and the names in the page's language.
      const shown = await page.$$eval('#matrix tbody tr', (trs) => trs.map((tr) => [tr.querySelector('td.total').innerText, tr.children[1].innerText]));
      eq(JSON.stringify(shown.map((x) => x[0])), JSON.stringify(r.platforms.map((p) => p.total.toFixed(2))), `${lang} ${w}: totals shown`);
      eq(JSON.stringify(shown.map((x) => x[1])), JSON.stringify(r.platforms.map((p) => lang === 'zh' ? p.name_zh : p.name)), `${lang}: platform names`);
      // Each slider shows its weight, and is labelled and explained.
      for (const c of r.criteria) {
        eq(Number(await page.inputValue(`#w-${c}`)), r.weights[c], `${lang} ${w}: slider ${c}`);
        const label = await page.locator(`label[for="w-${c}"]`).innerText();
        assert(label.length > 0 && (lang === 'en' || hasHan(label)), `${c}: label "${label}"`);
        assert((await page.locator(`#w-${c}-hint`).innerText()).length > 10, `${c}: explained`);
      }
      await noNonsense(page);
    }
  }
  // Every weight 0: the field's message, no table.
  await go(page, `#/fit?lang=en&weights=${encodeURIComponent('memory=0,billing=0,slicing=0,interconnect=0,frameworks=0,support=0')}`, 'fit');
  assert(/weights/.test(await page.locator('#weights-err').innerText()), 'the error names the weights');
  eq(await page.locator('#matrix').count(), 0, 'no ranking without a weight');
  noProblems(page, 'problems');
});

test('moving a weight slider (by keyboard) re-ranks the platforms, goes to the URL, and the link keeps it', async () => {
  const context = await browser();
  const page = await watchedPage(context);
  await go(page, '#/fit?lang=en', 'fit');
  const before = await matrixRows(page);
  // Slicing to its maximum, interconnect to 0, with the keys a keyboard user would press.
  await page.focus('#w-slicing');
  await page.keyboard.press('End');
  await page.focus('#w-interconnect');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('weights=slicing=10,interconnect=0'));
  eq(await page.locator('#w-slicing-value').innerText(), '10', 'the slider says its value');
  const after = await matrixRows(page);
  matrixLikeCli(after, 'slicing=10,interconnect=0', 'after the sliders');
  assert(JSON.stringify(after.map((r) => r[0])) !== JSON.stringify(before.map((r) => r[0])), 'the ranking changed');
  // Reload, then the link in another browser: the same weights and ranking.
  await page.reload();
  eq(JSON.stringify(await matrixRows(page)), JSON.stringify(after), 'after a reload');
  const other = await watchedPage(await browser());
  await other.goto(page.url());
  eq(JSON.stringify(await matrixRows(other)), JSON.stringify(after), 'from the shared link');
  eq(await other.inputValue('#w-slicing'), '10', 'the slider from the link');
  // Equal weights again.
  await page.click('#weights-reset');
  await page.waitForFunction(() => !location.hash.includes('weights='));
  eq(JSON.stringify(await matrixRows(page)), JSON.stringify(before), 'equal weights');
  noProblems(page, 'problems');
  noProblems(other, 'problems');
});

const SPOT_IDS = [['spot-hours', '--hours'], ['spot-od', '--on-demand-price'], ['spot-price', '--spot-price'], ['spot-mtbi', '--mtbi'], ['spot-ckpt', '--checkpoint-every'], ['spot-restart', '--restart']];

test('spot against on-demand: the figures equal `vramfit spot` for the same inputs, in both languages', async () => {
  const page = await watchedPage(await browser());
  for (const lang of ['en', 'zh']) {
    for (const q of ['', 'spot_hours=100&spot_mtbi=6&spot_ckpt=2', 'source=params&params=70B&currency=CNY&spot_restart=0.5', 'spot_price=3&spot_od=2.5', 'gpu=rtx-4090&spot=true']) {
      await go(page, `#/fit?lang=${lang}${q ? '&' + q : ''}`, 'fit');
      await page.locator('#spot-result').waitFor();
      const args = ['spot', '--json'];
      for (const [id, flag] of SPOT_IDS) args.push(flag, (await page.inputValue(`#${id}`)).trim());
      const c = cli(args);
      const num = async (sel) => Number(await page.getAttribute(sel, 'data-value'));
      const what = `${lang} ${q || 'defaults'}`;
      eq(await num('#spot-cost'), c.spot_cost, `${what}: spot cost`);
      eq(await num('#od-cost'), c.on_demand_cost, `${what}: on-demand cost`);
      eq(await num('#spot-interruptions'), c.expected_interruptions, `${what}: interruptions`);
      eq(await num('#spot-lost'), c.expected_lost_hours_per_interruption, `${what}: lost per interruption`);
      eq(await num('#spot-wall'), c.expected_wall_hours, `${what}: wall hours`);
      eq(await num('#spot-break-even'), c.break_even_spot_price, `${what}: break-even price`);
      const mtbi = await page.getAttribute('#spot-break-even-mtbi', 'data-value');
      eq(mtbi === '' ? null : Number(mtbi), c.break_even_mtbi_hours, `${what}: break-even MTBI`);
      eq(await page.getAttribute('#spot-result', 'data-cheaper'), c.spot_is_cheaper ? 'spot' : 'on-demand', `${what}: which is cheaper`);
      eq(await page.locator('#spot-guide').count(), c.guide_prefers_on_demand ? 1 : 0, `${what}: the guide's 24-hour advice`);
      const currency = q.includes('currency=CNY') ? 'CNY' : 'USD';
      eq(await page.locator('#spot-cost .v').innerText(), `${c.spot_cost.toFixed(2)} ${currency}`, `${what}: spot cost as shown`);
      const verdict = await page.locator('#spot-verdict').innerText();
      assert(verdict.includes(`${Math.abs(c.savings).toFixed(2)} ${currency}`), `${what}: the verdict says by how much: ${verdict}`);
      if (lang === 'zh') assert(hasHan(verdict), 'the verdict in Chinese');
      await noNonsense(page);
    }
  }
  // The default prices are the cheapest on-demand and spot options of `vramfit recommend`.
  await go(page, '#/fit?lang=en', 'fit');
  const r = cli(['recommend', '--json', '--model', 'meta-llama/Llama-3.1-8B', '--spot', '--limit', '0']);
  const round = (x) => String(Math.round(x * 1e4) / 1e4);
  eq(await page.inputValue('#spot-od'), round(r.options.find((o) => o.market === 'on-demand').price_per_hour), 'default on-demand price');
  eq(await page.inputValue('#spot-price'), round(r.options.find((o) => o.market === 'spot').price_per_hour), 'default spot price');
  noProblems(page, 'problems');
});

test('spot against on-demand: a bad input shows the core\'s message next to its field, never NaN', async () => {
  const page = await watchedPage(await browser());
  await go(page, '#/fit?lang=en', 'fit');
  await page.locator('#spot-result').waitFor();
  for (const [id, value, field, valid] of [['spot-hours', '0', 'hours', '24'], ['spot-mtbi', 'abc', 'mtbi', '12'], ['spot-ckpt', '-1', 'checkpoint_every', '0.5'], ['spot-price', '-3', 'spot_price', '1'], ['spot-od', '', 'on_demand_price', '2'], ['spot-restart', '1e9', 'restart', '0.25'], ['spot-hours', '1e6', 'hours', '24']]) {
    await page.fill(`#${id}`, value);
    const err = page.locator(`#${id}-err`);
    await err.waitFor({ timeout: 5000 }).catch(async () => {
      throw new Failure(`${id}=${value}: no message next to the field; the panel says: ${await page.locator('#spot-panel').innerText()} (${page.url()})`);
    });
    const text = await err.innerText();
    assert(text.startsWith(field + ':'), `${id}=${value}: ${text}`);
    eq(await page.getAttribute(`#${id}`, 'aria-invalid'), 'true', `${id}: marked invalid`);
    eq(await page.getAttribute('#spot-error', 'data-field'), field, `${id}: the notice names the field`);
    eq(await page.locator('#spot-result').count(), 0, 'no figures from a bad input');
    await noNonsense(page);
    await page.fill(`#${id}`, valid);
    await page.locator('#spot-result').waitFor();
  }
  await go(page, '#/fit?lang=zh&spot_hours=-5', 'fit');
  assert(hasHan(await page.locator('#spot-hours-err').innerText()), 'the message in Chinese too');
  noProblems(page, 'problems');
});

/** The offers table: [offer, price] per row. */
async function offerRows(page) {
  await page.locator('#offers tbody tr').first().waitFor();
  return page.$$eval('#offers tbody tr', (trs) => trs.map((tr) => [tr.dataset.offer, Number(tr.dataset.price)]));
}

test('a typed price persists across reloads (localStorage), reorders the offers, and reset restores the catalog', async () => {
  const context = await browser();
  const page = await watchedPage(context);
  await go(page, '#/fit?lang=en', 'fit');
  const before = await offerRows(page);
  // The catalog's third cheapest option, at a price that makes it the cheapest.
  const target = before[2][0];
  await page.locator('#price-editor summary').click();
  const input = page.locator(`#price-table tr[data-offer="${target}"] input.price`);
  await input.fill('0.01');
  await page.waitForFunction((id) => document.querySelector('#offers tbody tr')?.dataset.offer === id, target);
  const after = await offerRows(page);
  assert(after[0][1] < before[0][1], `${target} is now the cheapest: ${after[0][1]}`);
  eq(await page.evaluate(() => localStorage.getItem('vramfit.prices')), JSON.stringify({ [target]: 0.01 }), 'kept in localStorage');
  eq(await page.getAttribute(`#price-table tr[data-offer="${target}"]`, 'data-edited'), 'true', 'marked as edited');
  eq(await page.getAttribute('#offers tbody tr', 'data-typed'), 'true', 'the offers table says the price is yours');
  // The spot calculator's default on-demand price follows.
  // (to four significant digits, as `round_price` in web/src/compute.rs keeps it).
  eq(Number(await page.inputValue('#spot-od')), Number(after[0][1].toPrecision(4)), 'the spot default follows the typed price');
  // A reload, and another tab of the same browser: the price is still there.
  await page.reload();
  eq(JSON.stringify(await offerRows(page)), JSON.stringify(after), 'after a reload');
  eq(await page.inputValue(`#price-table tr[data-offer="${target}"] input.price`), '0.01', 'the typed price after a reload');
  const tab = await watchedPage(context, { fresh: true });
  await go(tab, '#/fit?lang=zh', 'fit');
  eq((await offerRows(tab))[0][0], target, 'another tab uses it');
  // The MIG planner prices with the offers in use too (its page opens without error).
  await go(tab, '#/mig?lang=en', 'mig');
  await tab.locator('#mig-plan').waitFor();
  // A bad price: the core's message next to the field; the price in force stays.
  await input.fill('-2');
  const err = page.locator(`#price-table tr[data-offer="${target}"] .err`);
  await err.waitFor();
  assert(/price_per_hour.*above 0/.test(await err.innerText()), await err.innerText());
  eq((await offerRows(page))[0][0], target, 'a bad price changes nothing');
  await noNonsense(page);
  // Reset: the catalog's prices and order, and nothing left in storage.
  await page.click('#reset-prices');
  await page.waitForFunction((id) => document.querySelector('#offers tbody tr')?.dataset.offer !== id, target);
  eq(JSON.stringify(await offerRows(page)), JSON.stringify(before), 'the catalog again');
  eq(await page.evaluate(() => localStorage.getItem('vramfit.prices')), null, 'storage cleared');
  const row = page.locator(`#price-table tr[data-offer="${target}"]`);
  eq(await row.getAttribute('data-edited'), 'false', 'no longer edited');
  eq(await row.locator('input.price').inputValue(), (await row.locator('td:nth-child(4)').innerText()).split(' ')[0], 'the field shows the catalog price, not the bad text');
  eq(await row.locator('.err').count(), 0, 'and no error');
  noProblems(page, 'problems');
  noProblems(tab, 'problems');
});

test('offers export as JSON and import back (round trip); a malformed import names the record and field', async () => {
  const context = await browser();
  const page = await watchedPage(context);
  await go(page, '#/fit?lang=en', 'fit');
  const before = await offerRows(page);
  const target = before[1][0];
  await page.locator('#price-editor summary').click();
  await page.locator(`#price-table tr[data-offer="${target}"] input.price`).fill('0.02');
  await page.waitForFunction((id) => document.querySelector('#offers tbody tr')?.dataset.offer === id, target);
  const edited = await offerRows(page);
  const dir = mkdtempSync(join(tmpdir(), 'vramfit-offers-'));
  const exportOnce = async (name) => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
    eq(download.suggestedFilename(), 'vramfit-offers.json', 'the file name');
    const file = join(dir, name);
    await download.saveAs(file);
    return file;
  };
  const file = await exportOnce('exported.json');
  const exported = JSON.parse(readFileSync(file, 'utf8'));
  eq(exported.length, await page.locator('#price-table tbody tr').count(), 'every offer exported');
  eq(exported.find((o) => o.id === target).price_per_hour, 0.02, 'with the typed price');
  // Back to the catalog, then import the file: the typed price is now the catalog's.
  await page.click('#reset-prices');
  await page.waitForFunction(() => localStorage.getItem('vramfit.prices') === null);
  await page.setInputFiles('#import-file', file);
  await page.locator('#import-ok').waitFor();
  eq(await page.getAttribute('#catalog-status', 'data-imported'), 'true', 'an imported catalog');
  eq(await page.getAttribute('#catalog-status', 'data-edited'), '0', 'no typed price');
  eq(JSON.stringify(await offerRows(page)), JSON.stringify(edited), 'the imported offers plan as the edited ones did');
  const again = JSON.parse(readFileSync(await exportOnce('again.json'), 'utf8'));
  eq(JSON.stringify(again), JSON.stringify(exported), 'export → import → export is the same file');
  // It persists across a reload.
  await page.reload();
  eq(await page.getAttribute('#catalog-status', 'data-imported'), 'true', 'the imported catalog after a reload');
  eq(JSON.stringify(await offerRows(page)), JSON.stringify(edited), 'its offers after a reload');
  // Malformed: the second record's price is negative; then a GPU not in the catalog; then not JSON.
  const cases = [
    [exported.map((o, i) => (i === 1 ? { ...o, price_per_hour: -5 } : o)), 'offers[1].price_per_hour', /record 2 .*at most 1000000/],
    [exported.map((o, i) => (i === 0 ? { ...o, gpu: 'gtx-9999' } : o)), 'offers[0].gpu', /unknown GPU/],
    [[{ ...exported[0], price: 1 }], 'offers[0].price', /unknown field/],
    ['not json', 'offers', /not JSON/],
  ];
  for (const [i, [content, field, re]] of cases.entries()) {
    const bad = join(dir, `bad${i}.json`);
    writeFileSync(bad, typeof content === 'string' ? content : JSON.stringify(content));
    await page.setInputFiles('#import-file', bad);
    const err = page.locator('#import-error');
    await err.waitFor();
    await page.waitForFunction((f) => document.querySelector('#import-error')?.dataset.field === f, field);
    const text = await err.innerText();
    assert(text.includes(field) && re.test(text), `${field}: ${text}`);
    eq(JSON.stringify(await offerRows(page)), JSON.stringify(edited), `${field}: the catalog is unchanged`);
  }
  // In Chinese, the same message framed in Chinese.
  await go(page, '#/fit?lang=zh', 'fit');
  await page.setInputFiles('#import-file', join(dir, 'bad0.json'));
  assert(hasHan(await page.locator('#import-error').innerText()), 'the import error in Chinese');
  // The built-in catalog again.
  await page.click('#builtin');
  await page.waitForFunction(() => localStorage.getItem('vramfit.offers') === null);
  eq(JSON.stringify(await offerRows(page)), JSON.stringify(before), 'the built-in catalog');
  rmSync(dir, { recursive: true, force: true });
  noProblems(page, 'problems');
});

test('Chinese pages show Chinese tier advice, formulas (quick and component by component) and config.json notes', async () => {
  const page = await watchedPage(await browser());
  await go(page, '#/fit?lang=zh&mode=training', 'fit');
  const tier = await page.locator('#tier dl').innerText();
  assert(hasHan(tier) && /80 GB/.test(tier) && !/minimum|multi-GPU/.test(tier), `tier: ${tier}`);
  // A catalog card: the full build, with the what-ifs.
  await go(page, '#/calc?lang=zh&mode=training&gpu=h100-sxm5-80gb', 'calc');
  await page.locator('#whatif').waitFor();
  const formula = await page.locator('#quick-formula').innerText();
  assert(formula.includes('权重') && !/weights|guide/.test(formula), `quick formula: ${formula}`);
  // The working, component by component: the same numbers as the English page, no English words.
  const working = async () => page.$$eval('#working tr[data-key] .formula', (els) => els.map((e) => e.textContent));
  const zhWorking = await working();
  const zhSpeeds = await page.$$eval('#whatif .card .speed', (els) => els.map((e) => e.textContent));
  assert(zhSpeeds.length >= 3 && zhSpeeds.every((t) => t.startsWith('速度：')), `zh speed lines: ${zhSpeeds.join(' | ')}`);
  assert(zhWorking.length >= 5 && zhWorking.every(hasHan), `zh working: ${zhWorking.join(' | ')}`);
  assert(zhWorking.every((f) => !/\b(trainable|params|weights|tokens|layers|moments|master|vocab|hidden|blocks|peak)\b/.test(f)), `zh working: ${zhWorking.join(' | ')}`);
  await go(page, '#/calc?lang=en&mode=training&gpu=h100-sxm5-80gb', 'calc');
  assert((await page.locator('#quick-formula').innerText()).includes('weights'), 'English formula');
  const digits = (fs) => fs.map((f) => f.match(/[\d.,]+\d/g));
  eq(JSON.stringify(digits(zhWorking)), JSON.stringify(digits(await working())), 'the same numbers in both languages');
  // A config with notes (Llama 4 Scout: vision tower, chunked attention).
  await go(page, '#/calc?lang=zh', 'calc');
  await page.locator('button[data-source="config"]').click();
  await page.setInputFiles('#f-config', join(root, 'crates', 'vramfit', 'tests', 'corpus', 'configs', 'llama-4-scout-17b-16e-instruct.json'));
  const info = await page.locator('#config-info').innerText();
  assert(info.includes('分块注意力') && !/counted as/.test(info), `config notes: ${info}`);
  noProblems(page, 'problems');
});

test('Diagnose classifies pasted text like `vramfit diagnose`, plots nvidia-smi, walks the tree', async () => {
  const page = await watchedPage(await browser());
  await go(page, '#/diagnose?lang=en', 'diagnose');
  for (const [button, file] of [['diag.ex_oom', 'pytorch-2.5-brief-example.txt'], ['diag.ex_summary', 'summary-2.x-fragmented-with-retries.txt'], ['diag.ex_smi', 'smi-csv-header-leak.txt']]) {
    await page.locator(`button[data-example="${button}"]`).click();
    await page.locator('#diagnosis').waitFor();
    const d = cli(['diagnose', '--json', join(root, 'tests', 'corpus', 'diagnose', file)]);
    eq(await page.getAttribute('#diagnosis', 'data-kind'), d.kind, `${file}: kind`);
    eq(await page.getAttribute('#diagnosis', 'data-input'), d.input, `${file}: format`);
    assert(await page.locator('#fixes li').count() === d.fixes.length, `${file}: fixes`);
  }
  assert(await page.locator('#smi-plot svg path.series').count() >= 1, 'the nvidia-smi trend is plotted');
  // Paste by hand, in Chinese.
  await go(page, '#/diagnose?lang=zh', 'diagnose');
  await page.fill('#diag-text', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has a total capacity of 23.65 GiB of which 3.10 GiB is free.');
  await page.locator('#diagnosis').waitFor();
  eq(await page.getAttribute('#diagnosis', 'data-kind'), 'capacity', 'a request above what is free');
  assert(hasHan(await page.locator('#explanation').innerText()), 'explained in Chinese');
  // The decision tree: answer the first option until a leaf.
  for (let i = 0; i < 12 && await page.locator('#walk-question').count() > 0; i++) {
    await page.locator('#walk-question button').first().click();
  }
  await page.locator('#walk-leaf').waitFor();
  assert(/walk=0/.test(page.url()), 'the walk is in the link');
  noProblems(page, 'problems');
});

test('MIG planner packs the guide\'s example on one A100 80GB, like `vramfit mig`', async () => {
  const page = await watchedPage(await browser());
  await go(page, '#/mig?lang=en', 'mig');
  await page.locator('#mig-plan').waitFor();
  const jobs = (await page.inputValue('#mig-jobs')).split('\n');
  const m = cli(['mig', '--json', '--gpu', 'a100-sxm4-80gb', ...jobs.flatMap((j) => ['--job', j])]);
  eq(Number(await page.getAttribute('#mig-plan', 'data-cards')), m.cards.length, 'cards');
  const profiles = await page.$$eval('#mig-plan tr[data-profile]', (trs) => trs.map((tr) => tr.dataset.profile));
  eq(JSON.stringify(profiles), JSON.stringify(m.cards.flatMap((c) => c.slices.map((s) => s.profile))), 'profiles');
  await page.fill('#mig-jobs', 'big=500GiB');
  await page.locator('#mig-error, #mig-jobs-err').first().waitFor();
  await page.fill('#mig-jobs', 'x=lots');
  assert(/jobs/.test(await page.locator('#mig-jobs-err').innerText()), 'the error names the field');
  await page.fill('#mig-jobs', 'a=10GiB');
  await page.locator('#add-calc-job').click();
  await page.waitForFunction(() => document.querySelectorAll('#mig-plan tr[data-profile]').length === 2);
  noProblems(page, 'problems');
});

test('FAQ answers carry live numbers, with no unfilled slot', async () => {
  const page = await watchedPage(await browser());
  for (const lang of ['en', 'zh']) {
    await go(page, `#/faq?lang=${lang}`, 'faq');
    await page.$$eval('#faq details', (ds) => ds.forEach((d) => { d.open = true; }));
    const text = await page.locator('#faq').innerText();
    assert(!/\{[a-z_0-9]+\}/.test(text), `${lang}: an unfilled slot`);
    assert(text.includes('49.0 GB'), `${lang}: the guide's 7B training example`);
  }
  // Q4 follows the calculator's card.
  await go(page, '#/faq?lang=en&gpu=rtx-4090', 'faq');
  await page.$$eval('#faq details', (ds) => ds.forEach((d) => { d.open = true; }));
  assert((await page.locator('#faq').innerText()).includes('24 GB'), 'your card');
  noProblems(page, 'problems');
});

test('This device: a picked card is used in the calculator, its memory from the catalog', async () => {
  const page = await watchedPage(await browser());
  await go(page, '#/device?lang=en', 'device');
  await page.locator('#device-card').waitFor();
  await page.selectOption('#device-gpu', 'rtx-4090');
  const mem = Number(await page.getAttribute('#card-memory', 'data-bytes'));
  assert(mem > 20 * 2 ** 30 && mem < 25 * 2 ** 30, 'the catalog memory of an RTX 4090');
  await page.locator('#use-card').click();
  await page.waitForSelector('main[data-view="calc"] #fit');
  eq(await page.inputValue('#f-gpu'), 'rtx-4090', 'the calculator uses the card');
  eq(Number(await page.locator('#fit').getAttribute('data-fits') === 'true'), Number(cli(cliArgs('gpu=rtx-4090')).fit.fits), 'fit as the CLI');
  // Where the card's memory comes from, as the catalog (`vramfit gpus --json`) says it.
  const card = cli(['gpus', '--json']).find((g) => g.id === 'rtx-4090');
  const src = await page.textContent('#gpu-memory-source');
  eq(src, `Memory measured (${card.date}): ${card.memory_note.replace(/^measured: /, '')}`, 'the memory figure with its provenance');
  noProblems(page, 'problems');
});

test('accessibility: no serious axe-core violation on any view, light or dark, either language', async () => {
  // axe is injected as a script, which the page's CSP forbids: this one context bypasses it.
  const axePath = join(root, 'node_modules', 'axe-core', 'axe.min.js');
  const found = [];
  for (const scheme of ['light', 'dark']) {
    const page = await watchedPage(await browser({ bypassCSP: true, colorScheme: scheme }));
    for (const v of VIEWS) {
      for (const lang of ['en', 'zh']) {
        await go(page, `#/${v}?lang=${lang}&mode=training`, v);
        await page.waitForTimeout(100);
        // Folded parts too (the price editor's fields, the calculator's advanced ones).
        await page.$$eval('main details', (ds) => ds.forEach((d) => { d.open = true; }));
        await page.addScriptTag({ path: axePath });
        const r = await page.evaluate(async () => {
          const res = await window.axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] });
          return res.violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')
            .map((x) => `${x.id}: ${x.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
        });
        for (const x of r) found.push(`${scheme} ${v} ${lang}: ${x}`);
      }
    }
  }
  assert(found.length === 0, `violations:\n    ${found.join('\n    ')}`);
});

test('the book is linked from the page, in the page\'s language, and stays on the origin', async () => {
  if (!existsSync(join(root, 'dist', 'book', 'en', 'index.html'))) {
    throw new Failure('dist/book/ is missing: build with `cargo xtask dist --book` (cargo xtask test does)');
  }
  const page = await watchedPage(await browser());
  for (const lang of ['en', 'zh']) {
    await go(page, `#/calc?lang=${lang}`, 'calc');
    await page.locator(`footer a[href="./book/${lang}/"]`).click();
    await page.waitForURL(`**/book/${lang}/**`);
    await page.locator('main h1').first().waitFor();
    await page.waitForLoadState('load');
    await page.waitForLoadState('networkidle');
    if (lang === 'zh') assert(hasHan(await page.locator('main').innerText()), 'the Chinese book');
  }
  noProblems(page, 'problems in the book');
});

test('screenshots of every view, desktop and phone', async () => {
  const page = await watchedPage(await browser());
  for (const [size, viewport] of [['desktop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]]) {
    await page.setViewportSize(viewport);
    for (const v of VIEWS) {
      for (const lang of ['en', 'zh']) {
        await go(page, `#/${v}?lang=${lang}`, v);
        await page.waitForTimeout(150);
        await shot(page, `${v}-${lang}-${size}`);
        // No English column header broken inside a word ("Compone" / "nt"): a table gives its
        // columns at least their headers' longest word.
        if (lang === 'en') {
          const broken = await page.evaluate(() => {
            const out = [];
            for (const th of document.querySelectorAll('thead th')) {
              if (!th.getClientRects().length) continue;
              const walk = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
              for (let n = walk.nextNode(); n; n = walk.nextNode()) {
                for (const m of n.data.matchAll(/\S+/g)) {
                  const r = document.createRange();
                  r.setStart(n, m.index);
                  r.setEnd(n, m.index + m[0].length);
                  if (r.getClientRects().length > 1) out.push(m[0]);
                }
              }
            }
            return out;
          });
          eq(broken.join(', '), '', `${v} (${size}): column headers broken inside a word`);
        }
      }
      // Fit & rent's parts, each on its own: the price editor (open, one price typed), the spot
      // calculator and the decision matrix with weights set.
      if (v === 'fit') {
        for (const lang of ['en', 'zh']) {
          await go(page, `#/fit?lang=${lang}&weights=${encodeURIComponent('memory=3,slicing=8,support=0')}&spot_hours=48`, v);
          await page.$$eval('#price-editor', (ds) => ds.forEach((d) => { d.open = true; }));
          await page.locator('#price-table input.price').first().fill('0.9');
          await page.waitForTimeout(150);
          for (const [part, sel] of [['prices', '#prices'], ['spot', '#spot-panel'], ['matrix', '#matrix-panel']]) {
            await page.locator(sel).screenshot({ path: join(ARTIFACTS, `fit-${part}-${lang}-${size}.png`) });
          }
          await page.click('#reset-prices');
        }
      }
      // Nothing wider than the phone's screen.
      if (size === 'phone') {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert(overflow <= 1, `${v}: the page is ${overflow}px wider than the phone`);
      }
    }
    // Opened states too, where long unbroken text (environment variables, commands) shows:
    // every FAQ answer, a diagnosis with its fixes, Fit & rent's spot breakdown. No element
    // outside a scrolling table or command block (`pre`) reaches past the screen.
    if (size === 'phone') {
      for (const lang of ['en', 'zh']) {
        for (const [v, hash, prepare] of [
          ['faq', `#/faq?lang=${lang}`, async () => page.$$eval('details', (ds) => ds.forEach((d) => { d.open = true; }))],
          ['diagnose', `#/diagnose?lang=${lang}`, async () => {
            await page.locator('button[data-example="diag.ex_oom"]').click();
            await page.locator('#diagnosis').waitFor();
          }],
          ['fit', `#/fit?lang=${lang}&spot_hours=48`, async () => {}],
        ]) {
          await go(page, hash, v);
          await prepare();
          await page.waitForTimeout(150);
          const wide = await page.evaluate(() => [...document.querySelectorAll('main *')]
            .filter((e) => !e.closest('.scroll, pre') && e.getBoundingClientRect().right > window.innerWidth + 1)
            .map((e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${e.className} (${Math.round(e.getBoundingClientRect().right)}px)`)
            .slice(0, 5));
          assert(wide.length === 0, `${v} (${lang}, opened): wider than the phone: ${wide.join(', ')}`);
        }
      }
    }
  }
  if (process.env.VRAMFIT_UPDATE_SCREENSHOT === '1') {
    // The README's picture: a LoRA fine-tune on an H100, the first screen of the calculator.
    await page.setViewportSize({ width: 1280, height: 1000 });
    await go(page, '#/calc?lang=en&mode=training&batch=4&lora_rank=16&grad_checkpointing=full&gpu=h100-sxm5-80gb', 'calc');
    await page.waitForTimeout(200);
    await page.screenshot({ path: join(root, 'docs', 'screenshot.png') });
  }
  noProblems(page, 'problems');
});

// The hub lookup's tests, in a file of their own, with this harness.
hubTests({ test, browser, watchedPage, go, eq, assert, shown, sameAsCli, BASE, CLI });
answerTests({ test, browser, watchedPage, go, eq, assert, noProblems, cli, cliArgs, gib, hasHan });
trainingTests({ test, browser, watchedPage, go, eq, assert, noProblems, shown, sameAsCli, cli, cliArgs, hasHan, gib });
linksTests({ test, browser, watchedPage, go, eq, assert, noProblems, shown, sameAsCli, cli, cliArgs });
momentsTests({ test, browser, watchedPage, go, eq, assert, noProblems, cli, cliArgs, hasHan, gib });

// ---------------------------------------------------------------------------------------------

let passed = 0;
let failed = 0;
let retried = 0;
const t0 = Date.now();
/** Runs one test; closes what it opened. The error, or null. */
async function attempt(fn) {
  try {
    await fn();
    return null;
  } catch (e) {
    return e;
  } finally {
    for (const { context, dir } of open.splice(0)) {
      await context.close().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
const why = (e) => String(e instanceof Failure ? e.message : e.stack).split('\n').join('\n     ');
// A failed test runs once more, in fresh browsers. A test that fails twice fails. One that passes
// the second time passes, but is reported (FLAKY, with its first error) and counted in the last
// line, so a race in the page or in the test shows in CI's summary instead of passing unseen.
for (const { name, fn } of tests) {
  if (FILTER && !name.includes(FILTER)) continue;
  const t = Date.now();
  const first = await attempt(fn);
  const second = first && await attempt(fn);
  const secs = ((Date.now() - t) / 1000).toFixed(1);
  if (!first) {
    passed++;
    console.log(`ok   ${name} (${secs} s)`);
  } else if (!second) {
    passed++;
    retried++;
    console.log(`FLAKY ${name} (${secs} s): passed on its second try; the first failed:\n     ${why(first)}`);
  } else {
    failed++;
    console.log(`FAIL ${name}\n     ${why(second)}\n     (the first try failed too${String(first) === String(second) ? ', the same way' : `: ${String(first).split('\n')[0]}`})`);
  }
}
const flaky = retried ? ` (${retried} only on a second try)` : '';
console.log(`e2e: ${passed} passed${flaky}, ${failed} failed (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
process.exit(failed === 0 ? 0 : 1);
