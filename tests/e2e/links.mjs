// End-to-end tests of the views linked to the calculator, registered by run.mjs with its harness
// (`h`), in English and Chinese: a model row of "Which models fit", an offer of "Fit & rent", an
// FAQ answer's run and a diagnosed OOM's card each open the calculator on the run they counted,
// and the calculator then shows what the CLI computes for it (the two views never disagree).

export function linksTests(h) {
  const { test, browser, watchedPage, go, eq, assert, noProblems, shown, sameAsCli, cli, cliArgs } = h;

  /** Follows the link `a` and returns the calculator's query once it shows its result. */
  async function follow(page, a) {
    await a.click();
    await page.waitForSelector('main[data-view="calc"]');
    await page.waitForSelector('#total');
    return new URL(page.url()).hash.replace(/^#\/calc\??/, '');
  }

  for (const lang of ['en', 'zh']) {
    test(`a model of "Which models fit" opens the calculator on its run, which needs what the row says (${lang})`, async () => {
      const page = await watchedPage(await browser());
      await go(page, `#/models?lang=${lang}&engine=llamacpp&gpu=rtx-4090`, 'models');
      const row = page.locator('#models-table tr[data-model]').nth(1);
      await row.waitFor();
      const [model, needs] = [await row.getAttribute('data-model'), Number(await row.getAttribute('data-bytes'))];
      const query = await follow(page, row.locator('a.calc-link'));
      const p = new URLSearchParams(query);
      eq(p.get('model'), model, 'the row\'s model');
      eq(p.get('lang'), lang, 'the language kept');
      const e = cli(cliArgs(query));
      eq(e.required_bytes, needs, 'the calculator\'s run needs what the row says');
      sameAsCli(await shown(page), e, 'the calculator after the link');
      noProblems(page, 'problems');
    });

    test(`an offer of "Fit & rent" opens the calculator on its layout, with the row's memory per GPU (${lang})`, async () => {
      const page = await watchedPage(await browser());
      await go(page, `#/fit?lang=${lang}&model=meta-llama/Llama-3.1-70B&mode=training&lora_rank=16`, 'fit');
      const row = page.locator('#offers tr[data-offer]:has(a.calc-link)').first();
      await row.waitFor();
      const perGpu = Number(await row.getAttribute('data-per-gpu'));
      const query = await follow(page, row.locator('a.calc-link'));
      const e = cli(cliArgs(query));
      eq(e.required_bytes, perGpu, 'the calculator\'s run needs the row\'s memory per GPU');
      sameAsCli(await shown(page), e, 'the calculator after the link');
      noProblems(page, 'problems');
    });

    test(`an FAQ answer's run opens in the calculator (${lang})`, async () => {
      const page = await watchedPage(await browser());
      await go(page, `#/faq?lang=${lang}`, 'faq');
      const links = page.locator('details[data-faq="guide_q3_multi_gpu"] .faq-runs a');
      await page.locator('details[data-faq="guide_q3_multi_gpu"] summary').click();
      eq(await links.count(), 3, 'three layouts of the answer');
      const query = await follow(page, links.nth(1));
      const p = new URLSearchParams(query);
      eq([p.get('model'), p.get('tp'), p.get('gpus'), p.get('lang')].join(' '), `meta-llama/Llama-2-13b-hf 4 4 ${lang}`, 'tensor parallel 4');
      sameAsCli(await shown(page), cli(cliArgs(query)), 'the calculator after the link');
      noProblems(page, 'problems');
    });

    test(`a diagnosed PyTorch OOM opens the calculator on the card's capacity (${lang})`, async () => {
      const page = await watchedPage(await browser());
      await go(page, `#/diagnose?lang=${lang}`, 'diagnose');
      await page.locator('button[data-example="diag.ex_oom"]').click();
      const a = page.locator('#diag-calc');
      await a.waitFor();
      const capacity = await page.getAttribute('#evidence dt[data-name="total_capacity"] + dd', 'data-bytes');
      const query = await follow(page, a);
      const p = new URLSearchParams(query);
      eq(p.get('gpu_memory'), `${capacity}B`, 'the card\'s capacity as the message gave it');
      // The pasted text stays with the page's state (the diagnosis's own input), not the CLI's.
      p.delete('text');
      sameAsCli(await shown(page), cli(cliArgs(p.toString())), 'the calculator after the link');
      noProblems(page, 'problems');
    });
  }
}
