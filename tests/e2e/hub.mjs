// End-to-end tests of the hub lookup, registered by run.mjs with its harness (`h`).
//
// The page asks the real hubs' addresses (https://huggingface.co, https://www.modelscope.cn),
// which the page's Content-Security-Policy allows; each request is answered by the mock hub
// (tests/hub, VRAMFIT_HUB_URL, started by `cargo xtask e2e`) through Playwright's routing.
// Playwright routes only the first request of a redirect, so the handler follows the mock's
// redirects to its CDN paths itself; a test of its own checks that the policy admits the CDN
// hosts those redirects lead to on the web (*.hf.co, *.modelscope.cn) and nothing else.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const HUB = process.env.VRAMFIT_HUB_URL;
/** The hosts the page may reach for a lookup (www/index.html's connect-src). */
const HUB_HOSTS = /^https:\/\/(huggingface\.co|[a-z0-9.-]+\.hf\.co|hf-mirror\.com|[a-z0-9.-]+\.hf-mirror\.com|modelscope\.cn|[a-z0-9.-]+\.modelscope\.cn)\//;
const mockLog = async () => (await fetch(`${HUB}/__mock/log`)).json();

const AWQ = 'Qwen/Qwen2.5-0.5B-Instruct-AWQ';
// The AWQ checkpoint's bytes, by hand in crates/vramfit-cli/tests/cli_hub.rs
// (an_awq_repo_gives_its_exact_weights): 458,314,496.
const AWQ_BYTES = 458314496;

/** Answers the page's requests to the hubs from the mock hub; returns the URLs asked. */
async function hubRoutes(context) {
  const asked = [];
  await context.route(HUB_HOSTS, async (route) => {
    const req = route.request();
    asked.push(`${req.method()} ${req.url()} ${req.headers().range ?? ''}`.trim());
    const u = new URL(req.url());
    const headers = {};
    if (req.headers().range) headers.range = req.headers().range;
    const r = await fetch(HUB + u.pathname + u.search, { method: req.method(), headers, redirect: 'follow' });
    const out = Object.fromEntries(r.headers);
    delete out['content-length'];
    delete out.connection;
    await route.fulfill({ status: r.status, headers: out, body: Buffer.from(await r.arrayBuffer()) });
  });
  return asked;
}

/** The CLI's estimate of `repo` looked up on the mock hub (its own cache, asked afresh). */
function cliHub(h, repo, args = []) {
  const cache = mkdtempSync(join(tmpdir(), 'vramfit-e2e-hub-'));
  return JSON.parse(execFileSync(h.CLI, ['estimate', '--model', repo, '--hub', '--hub-endpoint', HUB, '--json', ...args], {
    encoding: 'utf8',
    env: { ...process.env, VRAMFIT_CACHE_DIR: cache },
  }));
}

export function hubTests(h) {
  const { test, browser, watchedPage, go, eq, assert, shown, sameAsCli } = h;
  if (!HUB) {
    test('hub lookup (needs VRAMFIT_HUB_URL, the mock hub: cargo xtask e2e starts it)', async () => {
      assert(false, 'VRAMFIT_HUB_URL is not set');
    });
    return;
  }

  for (const lang of ['en', 'zh']) {
    test(`hub: no request leaves the page before Look up: not the typed id, the hub tab, the list or a link (${lang})`, async () => {
      const context = await browser({ serviceWorkers: 'block' });
      const asked = await hubRoutes(context);
      // Every request that leaves the page's origin, whatever its host.
      const left = [];
      context.on('request', (r) => { if (!r.url().startsWith(new URL(h.BASE).origin)) left.push(r.url()); });
      const page = await context.newPage();
      await go(page, `#/calc?lang=${lang}`, 'calc');
      await page.fill('#f-model', AWQ);
      // The hub tab: the full build takes over and shows the lookup, and fetches nothing.
      await page.locator('button[data-source="hub"]').click();
      await page.locator('#hub-lookup').waitFor();
      // Choosing a hub of the list fetches nothing either.
      await page.locator('#hub-list button[data-hub="https://www.modelscope.cn"]').click();
      await page.locator('#hub-list button[data-hub="https://huggingface.co"]').click();
      await page.waitForTimeout(800);
      eq(left.length + asked.length, 0, `no request before Look up: ${left} ${asked}`);
      const status = await page.locator('#hub-status').innerText();
      assert(lang === 'zh' ? status.includes('之前不会发出任何请求') : /nothing is fetched until you press Look up/.test(status), status);
      // A shared link: the button, still no request.
      const link = await context.newPage();
      await go(link, `#/calc?lang=${lang}&source=hub&model=${encodeURIComponent(AWQ)}`, 'calc');
      await link.locator('#hub-lookup').waitFor();
      assert((await link.locator('#hub-privacy').innerText()).includes('https://huggingface.co'), 'the page says where a lookup goes');
      await link.waitForTimeout(800);
      eq(left.length + asked.length, 0, `no request from a link: ${left}`);
      // The one explicit action: now, and only now, the hub is asked.
      await page.locator('#hub-lookup').click();
      await page.locator('#hub-info').waitFor({ timeout: 30000 });
      assert(asked.length > 0 && left.length > 0, 'Look up asks the hub');
    });
  }

  for (const lang of ['en', 'zh']) {
    test(`hub: Look up reads a repo and gives its exact weights (${lang})`, async () => {
      const context = await browser({ serviceWorkers: 'block' });
      const asked = await hubRoutes(context);
      const page = await watchedPage(context);
      await go(page, `#/calc?lang=${lang}`, 'calc');
      await page.fill('#f-model', AWQ);
      await page.locator('button[data-source="hub"]').click();
      // The full build takes over and shows the lookup; Look up reads the repo.
      await page.locator('#hub-lookup').click();
      const info = page.locator('#hub-info');
      await info.waitFor({ timeout: 30000 });
      eq(Number(await page.getAttribute('#hub-checkpoint', 'data-bytes')), AWQ_BYTES, 'the checkpoint, exactly');
      eq(await page.getAttribute('#hub-info', 'data-repo'), AWQ, 'the repo read');
      const s = await shown(page);
      const weights = s.rows.find(([k]) => k === 'weights');
      eq(weights[1], AWQ_BYTES, 'the estimate\'s weights are the checkpoint\'s bytes');
      sameAsCli(s, cliHub(h, AWQ), '`vramfit estimate --hub`');
      const text = await info.innerText();
      if (lang === 'zh') assert(/[\u4e00-\u9fff]/.test(text) && text.includes('已从'), `Chinese: ${text}`);
      else assert(text.includes('Read from https://huggingface.co: config.json, model.safetensors'), text);
      // The requests: the file list, config.json, the header by ranges through the CDN.
      assert(asked[0].startsWith(`GET https://huggingface.co/api/models/${AWQ}`), `first the file list: ${asked}`);
      assert(asked.some((a) => a.includes('/resolve/main/model.safetensors') && a.endsWith('bytes=0-7')), `8 bytes of the weights: ${asked}`);
      assert((await mockLog()).some((l) => l.target.startsWith(`/__cdn/${AWQ}/`) && l.range === 'bytes=0-7'), 'redirected to the CDN');
      for (const a of asked.filter((x) => x.includes('.safetensors'))) assert(/bytes=\d+-\d+$/.test(a), `by Range only: ${a}`);
      // The link carries the repo id, not the model.
      const url = page.url();
      assert(url.includes('source=hub') && url.includes('model=Qwen'), url);
      assert(!url.includes('vramfit_hub'), `the model stays out of the link: ${url}`);
      // It reopens from this browser's cache, with no request.
      const again = await context.newPage();
      const before = asked.length;
      await again.goto(url);
      await again.locator('#hub-info').waitFor();
      eq((await shown(again)).total, s.total, 'the link reopens the same model');
      eq(asked.length, before, 'from the cache, nothing fetched');
      assert(/cache|缓存/.test(await again.locator('#hub-info').innerText()), 'it says so');
      // In a browser that never looked it up: the button, and still nothing fetched.
      const other = await browser({ serviceWorkers: 'block' });
      const otherAsked = await hubRoutes(other);
      const fresh = await other.newPage();
      await fresh.goto(url);
      await fresh.locator('#hub-lookup').waitFor();
      await fresh.waitForTimeout(500);
      eq(otherAsked.length, 0, 'a link alone fetches nothing');
      const problems = page.problems.filter((p) => !p.startsWith('foreign request: https://'));
      eq(problems.length, 0, `problems: ${problems.join('; ')}`);
    });
  }

  // Four kinds of issue 42's model types through the page's lookup, in each engine that serves
  // them and both languages: the page's estimate is the CLI's (`vramfit estimate --hub`, which
  // crates/vramfit-cli/tests/cli_hub_types.rs holds to hand figures), and the fixed state of the
  // hybrids is the hand figure at any context.
  // Qwen3-Next, 36 Gated DeltaNet layers: a bf16 convolution state of 8,192 channels × 4 × 2 B and
  // an fp32 state of 32 × 128 × 128 × 4 B each. Nemotron-H, 24 Mamba2 layers: 10,240 channels ×
  // 4 × 2 B and 128 × 64 × 128 × 4 B each. transformers' state of one sequence.
  const KINDS = [
    ['Qwen/Qwen3-Next-80B-A3B-Instruct', 'linear attention', 36 * (8192 * 4 * 2 + 32 * 128 * 128 * 4)],
    ['nvidia/Nemotron-H-8B-Base-8K', 'state-space', 24 * (10240 * 4 * 2 + 128 * 64 * 128 * 4)],
    ['deepseek-ai/DeepSeek-V3.2', 'indexed MLA', null],
    ['OpenGVLab/InternVL3-8B-hf', 'a vision wrapper', null],
  ];
  const ENGINES = [['hf', 'inference'], ['vllm', 'serve'], ['sglang', 'serve']];
  for (const [repo, kind, state] of KINDS) {
    for (const lang of ['en', 'zh']) {
      test(`hub: ${kind} (${repo}) in transformers, vLLM and SGLang, as the CLI (${lang})`, async () => {
        const context = await browser({ serviceWorkers: 'block' });
        await hubRoutes(context);
        for (const [engine, mode] of ENGINES) {
          const page = await watchedPage(context);
          const run = `engine=${engine}&mode=${mode}&batch=1&gpu=h200-sxm-141gb`;
          await go(page, `#/calc?lang=${lang}&source=hub&model=${encodeURIComponent(repo)}&${run}`, 'calc');
          await page.locator('#hub-lookup').click();
          const info = page.locator('#hub-info');
          await info.waitFor({ timeout: 30000 });
          eq(await page.inputValue('#f-engine'), engine, `${repo}: the engine asked`);
          const s = await shown(page);
          const e = cliHub(h, repo, ['--engine', engine, '--mode', mode, '--batch', '1', '--gpu', 'h200-sxm-141gb']);
          sameAsCli(s, e, `${repo} on ${engine}`);
          if (engine === 'hf' && state !== null) {
            eq(s.rows.find(([k]) => k === 'state_cache')?.[1], state, `${repo}: the fixed state`);
          }
          const text = await info.innerText();
          if (lang === 'zh') assert(/[\u4e00-\u9fff]/.test(text) && text.includes('已从'), `Chinese: ${text}`);
          else assert(text.includes('Read from https://huggingface.co: config.json'), text);
          const problems = page.problems.filter((p) => !p.startsWith('foreign request: https://'));
          eq(problems.length, 0, `problems: ${problems.join('; ')}`);
          await page.close();
        }
      });
    }
  }

  test('hub: ModelScope and a GGUF repo, each with its own API shape', async () => {
    const context = await browser({ serviceWorkers: 'block' });
    const asked = await hubRoutes(context);
    const page = await context.newPage();
    await go(page, `#/calc?lang=en&source=hub&model=${encodeURIComponent('Qwen/Qwen2.5-0.5B-Instruct-GGUF')}`, 'calc');
    // ModelScope from the list of hubs.
    await page.locator('#hub-list button[data-hub="https://www.modelscope.cn"]').click();
    eq(await page.getAttribute('#hub-list button[data-hub="https://www.modelscope.cn"]', 'aria-pressed'), 'true', 'chosen in the list');
    await page.locator('#hub-lookup').click();
    await page.locator('#hub-info').waitFor({ timeout: 30000 });
    // Q4_K_M: 391,859,712 bytes by hand in cli_hub.rs (a_gguf_repo_gives_its_exact_weights_on_llama_cpp).
    eq(Number(await page.getAttribute('#hub-checkpoint', 'data-bytes')), 391859712, 'the GGUF checkpoint');
    eq(Number(await page.getAttribute('#hub-weights', 'data-bytes')), 391859712, 'the estimate\'s weights on llama.cpp');
    eq(await page.inputValue('#f-engine'), 'llamacpp', 'a GGUF file runs on llama.cpp');
    assert(asked[0].startsWith('GET https://www.modelscope.cn/api/v1/models/Qwen/Qwen2.5-0.5B-Instruct-GGUF/repo/files?Revision=master'), asked[0]);
    assert((await mockLog()).some((l) => l.target.startsWith('/__mscdn/Qwen/Qwen2.5-0.5B-Instruct-GGUF/')), 'redirected to ModelScope\'s CDN');
    // The endpoint is kept in this browser.
    await page.reload();
    await page.locator('#f-hub-endpoint').waitFor();
    eq(await page.inputValue('#f-hub-endpoint'), 'https://www.modelscope.cn', 'the endpoint persists');
  });

  test('hub: the page may reach the hubs and the CDN hosts their downloads redirect to, and no other', async () => {
    const context = await browser({ serviceWorkers: 'block' });
    const asked = await hubRoutes(context);
    const page = await context.newPage();
    await go(page, '#/calc?lang=en', 'calc');
    const get = (url) => page.evaluate((u) => fetch(u, { headers: { Range: 'bytes=0-7' } })
      .then((r) => r.status, (e) => e.name), url);
    // The hosts huggingface.co redirects weights to (https://huggingface.co/.well-known/meta.json
    // lists them, all under hf.co) and ModelScope's download host: allowed, answered by the mock.
    // The mirrors the guide's readers use, hf-mirror.com and modelscope.cn, and their hosts too.
    for (const host of ['https://cas-bridge.xethub.hf.co', 'https://us.aws.cdn.hf.co', 'https://cdn-lfs-us-1.hf.co', 'https://hf-mirror.com', 'https://cdn-lfs.hf-mirror.com', 'https://modelscope.cn']) {
      eq(await get(`${host}/__cdn/${AWQ}/model.safetensors`), 206, host);
    }
    eq(await get('https://cdn-lfs-cn-1.modelscope.cn/__mscdn/Qwen/Qwen3-0.6B-FP8/model.safetensors'), 206, 'ModelScope\'s CDN');
    const allowed = asked.length;
    eq(allowed, 7, `each reached the route: ${asked}`);
    // Look-alikes and other hosts: refused by the policy before any request.
    await page.evaluate(() => {
      window.blockedByPolicy = [];
      document.addEventListener('securitypolicyviolation', (e) => window.blockedByPolicy.push(`${e.effectiveDirective} ${e.blockedURI}`));
    });
    const others = ['https://hf.co.example.com/x', 'https://huggingface.co.example.com/x', 'https://example.com/x', 'https://hf-mirror.com.example.com/x', 'https://evilmodelscope.cn/x'];
    for (const url of others) eq(await get(url), 'TypeError', url);
    await page.waitForFunction((n) => window.blockedByPolicy.length === n, others.length);
    const blocked = await page.evaluate(() => window.blockedByPolicy);
    for (const url of others) assert(blocked.includes(`connect-src ${url}`), `the policy blocked ${url}: ${blocked}`);
    eq(asked.length, allowed, 'none of them reached the network');
  });

  test('hub: an address the page\'s policy refuses is named before any request, with the command line', async () => {
    const context = await browser({ serviceWorkers: 'block' });
    const asked = await hubRoutes(context);
    const seen = [];
    context.on('request', (r) => { if (!r.url().startsWith(new URL(h.BASE).origin)) seen.push(r.url()); });
    const page = await context.newPage();
    await go(page, `#/calc?lang=en&source=hub&model=${encodeURIComponent(AWQ)}`, 'calc');
    await page.fill('#f-hub-endpoint', 'https://hub.example.com');
    await page.locator('#f-hub-endpoint').dispatchEvent('change');
    await page.locator('#hub-lookup').click();
    const err = await page.locator('#hub-error').innerText();
    assert(err.includes('https://hub.example.com') && err.includes('HF_ENDPOINT=https://hub.example.com vramfit estimate'), err);
    await page.waitForTimeout(300);
    eq(seen.length + asked.length, 0, `no request: ${seen}`);
    // And the page's policy blocks any other origin, should code try.
    const blocked = await page.evaluate(() => fetch('https://hub.example.com/api/models/x/y').then(() => 'fetched', (e) => e.name));
    eq(blocked, 'TypeError', 'the Content-Security-Policy refuses it');
  });

  for (const lang of ['en', 'zh']) {
    test(`hub: a mirror that refuses the page is named as unreachable, with the command line that reads it (${lang})`, async () => {
      const context = await browser({ serviceWorkers: 'block' });
      await hubRoutes(context);
      // hf-mirror.com answers no other site's page: the browser sees a network error.
      await context.route(/^https:\/\/hf-mirror\.com\//, (route) => route.abort('failed'));
      const page = await context.newPage();
      await go(page, `#/calc?lang=${lang}&source=hub&model=${encodeURIComponent(AWQ)}`, 'calc');
      await page.locator('#hub-list button[data-hub="https://hf-mirror.com"]').click();
      await page.locator('#hub-lookup').click();
      const cli = page.locator('#hub-cli');
      await cli.waitFor({ timeout: 30000 });
      const text = await cli.innerText();
      assert(text.includes(`HF_ENDPOINT=https://hf-mirror.com vramfit estimate --model ${AWQ} --hub`), text);
      assert(lang === 'zh' ? text.includes('本页无法访问 https://hf-mirror.com') : text.includes('This page could not reach https://hf-mirror.com'), text);
    });
  }

  test('hub: each failure names the repo and what to do, in both languages, and nothing is cached', async () => {
    const context = await browser({ serviceWorkers: 'block' });
    await hubRoutes(context);
    const cases = [
      ['meta-llama/Llama-3.1-8B', 'is gated: HTTP 401 for config.json', '需授权'],
      ['Qwen/Qwen9-404B', 'is not on https://huggingface.co (HTTP 401)', '不存在'],
      ['mock/rate-limited', 'HTTP 429', '限制请求'],
      ['mock/huge-header', '104857600 bytes, over the 64 MiB', '超过'],
      ['state-spaces/mamba-130m-hf', 'num_attention_heads: missing: `mamba` is not a model_type vramfit names', 'mamba'],
    ];
    for (const [repo, en, zh] of cases) {
      for (const [lang, says] of [['en', en], ['zh', zh]]) {
        const page = await context.newPage();
        await go(page, `#/calc?lang=${lang}&source=hub&model=${encodeURIComponent(repo)}`, 'calc');
        await page.locator('#hub-lookup').click();
        const err = page.locator('#hub-error');
        await err.waitFor({ timeout: 30000 });
        const text = await err.innerText();
        assert(text.includes(repo) && text.includes(says), `${repo} (${lang}): ${text}`);
        await page.close();
      }
    }
    const page = await context.newPage();
    await go(page, '#/calc?lang=en', 'calc');
    const cached = await page.evaluate(() => localStorage.getItem('vramfit.hub.models'));
    eq(cached, null, 'no failure is cached');
  });
}
