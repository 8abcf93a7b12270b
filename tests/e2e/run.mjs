// End-to-end tests of the built site (dist/) in headless Chromium, driven by playwright-core.
//
// `cargo xtask test` serves dist/ under /vramfit/ (as GitHub Pages does) on a free loopback
// port and runs this file with VRAMFIT_URL set; run it by hand the same way:
//   VRAMFIT_URL=http://127.0.0.1:8080/vramfit/ node tests/e2e/run.mjs [filter]
// Screenshots go to tests/e2e/artifacts/ (git-ignored); with VRAMFIT_UPDATE_SCREENSHOT=1 the
// desktop calculator also replaces docs/screenshot.png.
import { chromium } from 'playwright-core';
import { mkdtempSync, mkdirSync, rmSync, copyFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';

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
export const VIEWS = ['calc', 'fit', 'mig', 'diagnose', 'faq', 'device'];

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
async function watchedPage(context) {
  const page = context.pages()[0] || await context.newPage();
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

test('screenshots of every view, desktop and phone', async () => {
  const page = await watchedPage(await browser());
  for (const [size, viewport] of [['desktop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]]) {
    await page.setViewportSize(viewport);
    for (const v of VIEWS) {
      for (const lang of ['en', 'zh']) {
        await go(page, `#/${v}?lang=${lang}`, v);
        await page.waitForTimeout(150);
        await shot(page, `${v}-${lang}-${size}`);
      }
      // Nothing wider than the phone's screen.
      if (size === 'phone') {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert(overflow <= 1, `${v}: the page is ${overflow}px wider than the phone`);
      }
    }
  }
  if (process.env.VRAMFIT_UPDATE_SCREENSHOT === '1') {
    copyFileSync(join(ARTIFACTS, 'calc-en-desktop.png'), join(root, 'docs', 'screenshot.png'));
  }
  noProblems(page, 'problems');
});

// ---------------------------------------------------------------------------------------------

let passed = 0;
let failed = 0;
const t0 = Date.now();
for (const { name, fn } of tests) {
  if (FILTER && !name.includes(FILTER)) continue;
  const t = Date.now();
  try {
    await fn();
    passed++;
    console.log(`ok   ${name} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}\n     ${String(e instanceof Failure ? e.message : e.stack).split('\n').join('\n     ')}`);
  } finally {
    for (const { context, dir } of open.splice(0)) {
      await context.close().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
console.log(`e2e: ${passed} passed, ${failed} failed (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
process.exit(failed === 0 ? 0 : 1);
