// End-to-end tests of the calculator's one answer, of each engine's own settings and of the
// phone's first screen, registered by run.mjs with its harness (`h`), in English and Chinese.

// vLLM 0.19, which starts with a pool of 1.26 such sequences (0.21 and later take the CUDA
// graphs out of the pool and do not start at all).
const LLAMA_70B_32_USERS =
  'model=meta-llama/Llama-3.3-70B-Instruct&mode=serve&engine=vllm&batch=32&max_model_len=8192&gpu=h100-sxm5-80gb&tp=2&engine_version=0.19';
// Llama-3.1-70B for 32 users at 8k on one H100: not as asked (the weights alone are 141 GB).
const LLAMA_70B_ONE_H100 =
  'model=meta-llama/Llama-3.1-70B&mode=serve&engine=vllm&batch=32&max_model_len=8192&gpu=h100-sxm5-80gb';
const QWEN_ON_4090 = 'model=qwen3:32b&engine=ollama&max_model_len=8192&gpu=rtx-4090';

export function answerTests(h) {
  const { test, browser, watchedPage, go, eq, assert, noProblems, cli, cliArgs, gib, hasHan } = h;

  /** The page's `16.4 GB`, as web/src/format.rs writes it. */
  const gb = (bytes) => {
    const g = bytes / 1e9;
    return g >= 100 ? `${g.toFixed(0)} GB` : `${g.toFixed(1)} GB`;
  };

  /** The answer's verdict and sentence, once the page shows it. */
  async function answer(page) {
    await page.locator('#answer').waitFor();
    return {
      verdict: await page.getAttribute('#answer', 'data-verdict'),
      text: await page.locator('#answer .verdict').innerText(),
      rule: await page.locator('#answer-rule').innerText(),
    };
  }

  for (const lang of ['en', 'zh']) {
    test(`run it: the page's launch is the CLI's, with the numbers the estimate assumed (${lang})`, async () => {
      const page = await watchedPage(await browser());
      await go(page, `#/calc?lang=${lang}&${LLAMA_70B_32_USERS}`, 'calc');
      await page.locator('#launch pre').waitFor();
      const shown = await page.locator('#launch pre').innerText();
      const args = cliArgs(LLAMA_70B_32_USERS).filter((a) => a !== '--json').slice(1);
      const l = cli(['launch', ...args, '--json']);
      eq(shown.trim(), l.script.trim(), 'the script is the CLI launch script');
      for (const part of ['vllm serve meta-llama/Llama-3.3-70B-Instruct', '--tensor-parallel-size 2', '--max-model-len 8192']) {
        assert(shown.includes(part), `${part} in: ${shown}`);
      }
      const title = await page.locator('#launch h2').innerText();
      eq(title, lang === 'zh' ? '启动命令' : 'Run it', 'the panel in the page\'s language');
      assert(lang === 'en' || hasHan(await page.locator('#launch p.hint').first().innerText()), 'Chinese hint');
      noProblems(page, 'problems');
    });

    test(`answer: 32 users at 8k on 2 × H100 is not a plain yes; the cards beneath agree (${lang})`, async () => {
      const page = await watchedPage(await browser());
      await go(page, `#/calc?lang=${lang}&${LLAMA_70B_32_USERS}`, 'calc');
      const a = await answer(page);
      const e = cli(cliArgs(LLAMA_70B_32_USERS));
      eq(e.fit.fits, false, 'the estimator: not as asked');
      eq(a.verdict, 'queues', 'the engine starts, the pool holds fewer than asked');
      assert(a.text.includes(e.max_concurrency_exact.toFixed(2)) && a.text.includes('32') && a.text.includes('8k'), a.text);
      assert(a.text.includes(gib(e.required_bytes)), `what all 32 need: ${a.text}`);
      if (lang === 'zh') {
        assert(a.text.startsWith('未达要求') && hasHan(a.rule), a.text);
      } else {
        assert(a.text.startsWith('Not as asked') && !/^Yes/.test(a.text), a.text);
        assert(/4 × H100|8 × H100/.test(a.text), `the fewest H100s that hold them: ${a.text}`);
      }
      eq(await page.getAttribute('#fit', 'data-fits'), 'false', 'the fit card agrees');
      // M_rec beside the verdict, as the guide's rule.
      assert(a.rule.includes('M_rec') && a.rule.includes(gb(e.recommended_bytes)), a.rule);
      assert(!/kv_pool_below_batch|h100-sxm5-80gb/.test(a.text), `no raw id: ${a.text}`);
      noProblems(page, 'problems');
    });

    test(`answer: a run short of its target names the cheapest rental that holds it, as the CLI's recommend ranks it, and Apply sets the form to it (${lang})`, async () => {
      const page = await watchedPage(await browser());
      await go(page, `#/calc?lang=${lang}&${LLAMA_70B_ONE_H100}`, 'calc');
      const a = await answer(page);
      eq(a.verdict, 'no', 'the weights alone do not fit one H100');
      const rent = page.locator('#answer-rent');
      await rent.waitFor();
      // The CLI's `recommend` with the same flags: its first option is the answer's.
      const first = cli(['recommend', ...cliArgs(LLAMA_70B_ONE_H100).slice(1)]).options[0];
      const attr = (k) => rent.getAttribute(`data-${k}`);
      eq(await attr('offer'), first.offer, 'the offer');
      eq(await attr('gpu'), first.gpu, 'the card');
      const l = first.parallelism;
      for (const [k, v] of [['gpus', l.gpus], ['tp', l.tp], ['pp', l.pp], ['nodes', l.nodes]]) eq(await attr(k), String(v), k);
      // The offer's own price for what is rented, in its own currency: the CLI ranks in US
      // dollars at the data set's 7.1 yuan to the dollar (Alibaba Cloud's 64 CNY an hour).
      const price = Number(await attr('price'));
      const currency = await attr('currency');
      const usd = currency === 'CNY' ? price / 7.1 : price;
      assert(Math.abs(usd - first.price_per_hour) < 1e-6, `${price} ${currency} against the CLI's ${first.price_per_hour} USD`);
      const text = await rent.innerText();
      assert(text.includes(`${price.toFixed(2)} ${currency}/h`), `the price in: ${text}`);
      assert(text.includes(`TP=${l.tp} × PP=${l.pp}`) && text.includes(`${l.gpus} `), `the layout in: ${text}`);
      assert(lang === 'en' ? text.includes('1 node') : hasHan(text) && text.includes('1 个节点'), text);
      assert(!/aliyun|a100-sxm4-80gb/.test(text), `no raw id: ${text}`);
      // Apply: the form takes the layout and the answer is a yes, with no rental named.
      await page.locator('#answer-apply').click();
      await page.waitForFunction(() => document.querySelector('#answer')?.dataset.verdict === 'yes');
      eq(await page.inputValue('#f-tp'), String(l.tp), 'tp set');
      eq(await page.inputValue('#f-pp'), String(l.pp), 'pp set');
      eq(await page.inputValue('#f-gpus'), String(l.gpus), 'GPUs set');
      // The requests asked for stay as asked: copies of a server share them in the estimator.
      eq(await page.inputValue('#f-batch'), '32', 'the batch asked for kept');
      eq(await page.locator('#answer-rent').count(), 0, 'a run that fits names no rental');
      noProblems(page, 'problems');
    });

    test(`answer: yes, with the speed and the memory to spare, as the CLI computes them (${lang})`, async () => {
      const page = await watchedPage(await browser());
      await go(page, `#/calc?lang=${lang}&${QWEN_ON_4090}`, 'calc');
      const a = await answer(page);
      const e = cli(cliArgs(QWEN_ON_4090));
      eq(e.fit.fits, true, 'the estimator: fits');
      eq(a.verdict, 'yes', 'yes');
      for (const part of ['qwen3:32b', 'Q4_K_M', '8k', 'RTX 4090', gib(e.fit.headroom_bytes), String(Math.round(e.throughput.decode_tokens_per_s_per_sequence))]) {
        assert(a.text.includes(part), `${part} in: ${a.text}`);
      }
      assert(lang === 'zh' ? a.text.startsWith('可以') : a.text.startsWith('Yes:'), a.text);
      eq(await page.getAttribute('#fit', 'data-fits'), 'true', 'the fit card agrees');
      // Without a card (the calculator's first load): what one GPU needs.
      await go(page, `#/calc?lang=${lang}`, 'calc');
      const d = await answer(page);
      eq(d.verdict, 'needs', 'no card: what it needs');
      assert(d.text.includes(gib(cli(cliArgs('')).required_bytes)), d.text);
      noProblems(page, 'problems');
    });

    test(`Ollama and llama.cpp show their own settings, by their own names and defaults (${lang})`, async () => {
      const page = await watchedPage(await browser());
      await go(page, `#/calc?lang=${lang}&engine=ollama&model=Qwen/Qwen3-32B&gpu=rtx-4090`, 'calc');
      const section = page.locator('#engine-settings');
      await section.waitFor();
      const text = await section.innerText();
      for (const name of ['Ollama', 'num_ctx', 'OLLAMA_NUM_PARALLEL', 'num_gpu', 'OLLAMA_KV_CACHE_TYPE']) {
        assert(text.includes(name), `${name} in the Ollama section: ${text}`);
      }
      assert(!text.includes('vLLM') && !text.includes('max_model_len'), `no vLLM words: ${text}`);
      if (lang === 'zh') assert(hasHan(text), text);
      // Its defaults: num_ctx 4,096 on a card below 24 GiB, the layers Ollama puts on the GPU.
      assert((await page.getAttribute('#f-max_model_len', 'placeholder')).includes('4,096'), 'num_ctx default');
      assert(/\d/.test(await page.getAttribute('#f-gpu_layers', 'placeholder')), 'num_gpu default');
      // The preset runs as Ollama's default tag, and says so; the format shows what is used.
      const hint = await page.locator('#f-model-hint').innerText();
      assert(hint.includes('qwen3:32b') && hint.includes('Q4_K_M'), hint);
      assert((await page.locator('#result-title').innerText()).includes('qwen3:32b'), 'the estimate is the tag\'s');
      const q = await page.$eval('#f-quantization', (s) => s.options[s.selectedIndex].textContent);
      assert(q.includes('Q4_K_M'), `quantization shows what is used: ${q}`);
      const kv = await page.$$eval('#f-kv_dtype option', (os) => os.map((o) => o.value));
      assert(!kv.includes('fp8') && kv.includes('q8_0'), `Ollama's KV types: ${kv}`);
      // An error about its context names num_ctx, not max_model_len.
      await go(page, `#/calc?lang=${lang}&engine=ollama&seq_len=8192&max_model_len=4096`, 'calc');
      const err = await page.locator('#calc-error').innerText();
      assert(err.includes('num_ctx') && !err.includes('max_model_len：') && !err.includes('max_model_len:'), err);
      // llama.cpp's flags.
      await go(page, `#/calc?lang=${lang}&engine=llamacpp&quantization=gguf-q4_k_m`, 'calc');
      const flags = await page.locator('#engine-settings').innerText();
      for (const flag of ['llama.cpp', '-c', '-np', '-ngl', '-ub', '-ctk']) assert(flags.includes(flag), `${flag}: ${flags}`);
      // SGLang's names.
      await go(page, `#/calc?lang=${lang}&engine=sglang&mode=serve`, 'calc');
      const sglang = await page.locator('#engine-settings').innerText();
      for (const name of ['context_length', 'max_running_requests', 'chunked_prefill_size', 'mem_fraction_static']) assert(sglang.includes(name), `${name}: ${sglang}`);
      noProblems(page, 'problems');
    });

    test(`the mode and the engine agree (${lang})`, async () => {
      const page = await watchedPage(await browser());
      await go(page, `#/calc?lang=${lang}`, 'calc');
      await page.selectOption('#f-mode', 'serve');
      await page.waitForFunction(() => document.querySelector('#f-engine')?.value === 'vllm');
      await page.selectOption('#f-engine', 'hf');
      await page.waitForFunction(() => document.querySelector('#f-mode')?.value === 'inference');
      await page.selectOption('#f-engine', 'sglang');
      await page.waitForFunction(() => document.querySelector('#f-mode')?.value === 'serve');
      await page.selectOption('#f-mode', 'inference');
      await page.waitForFunction(() => document.querySelector('#f-engine')?.value === 'hf');
      const label = await page.$eval('#f-mode option[value="serve"]', (o) => o.textContent);
      assert(!label.includes('vLLM'), `serving is not named after one engine: ${label}`);
      noProblems(page, 'problems');
    });

    test(`phone (390 × 844): the answer and its figures on the first screen, the navigation in one row (${lang})`, async () => {
      const context = await browser({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
      const page = await watchedPage(context);
      for (const q of ['', `&${LLAMA_70B_32_USERS}`]) {
        await go(page, `#/calc?lang=${lang}${q}`, 'calc');
        await page.locator('#answer').waitFor();
        const box = await page.locator('#answer').boundingBox();
        assert(box && box.y >= 0 && box.y + box.height <= 844, `the answer within the first screen: ${JSON.stringify(box)}`);
        const nav = await page.locator('nav.views').boundingBox();
        const link = await page.locator('nav.views a').first().boundingBox();
        assert(nav.height < link.height * 1.8, `one row of navigation: ${nav.height} for links of ${link.height}`);
        const tops = await page.$$eval('nav.views a', (as) => [...new Set(as.map((a) => Math.round(a.getBoundingClientRect().top)))]);
        eq(tops.length, 1, 'every link on one row');
      }
      noProblems(page, 'problems');
    });
  }
}
