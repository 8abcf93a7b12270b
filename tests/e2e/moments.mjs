// End-to-end tests of the moments' chart for inference and serving ("look rather than read":
// where the memory goes over one run), registered by run.mjs with its harness (`h`), in English
// and Chinese: transformers' load, prefill and last token, and vLLM's start-up (the weights, the
// profile run, the KV pool, the CUDA graphs, serving), each moment's total and words the CLI's,
// the peak the verdict's, and no moment's words over another's.

// The page's `data-phase`, the Rust `Phase`'s Debug form, of the JSON's snake_case phase.
const PHASES = {
  load: 'Load',
  prefill: 'Prefill',
  decode: 'Decode',
  profile_run: 'ProfileRun',
  kv_pool: 'KvPool',
  cuda_graphs: 'CudaGraphs',
  serving: 'Serving',
};

export function momentsTests(h) {
  const { test, browser, watchedPage, go, eq, assert, noProblems, cli, cliArgs, hasHan, gib } = h;

  // A catalog card loads the full build, which draws the chart.
  const RUNS = [
    ['transformers', 'model=meta-llama%2FLlama-3.1-8B&seq_len=1024&new_tokens=256&gpu=h100-sxm5-80gb', 3],
    ['vLLM', 'model=meta-llama%2FLlama-3.1-8B&mode=serve&engine=vllm&gpu=h100-sxm5-80gb', 5],
  ];
  for (const lang of ['en', 'zh']) {
    for (const [name, q, count] of RUNS) {
      test(`${name}: the run is drawn moment by moment, the peak the CLI's (${lang})`, async () => {
        const page = await watchedPage(await browser());
        await go(page, `#/calc?lang=${lang}&${q}`, 'calc');
        await page.locator('#step-chart').waitFor();
        const rows = page.locator('#step-chart .step-row');
        eq(await rows.count(), count, 'the moments');
        const e = cli(cliArgs(q));
        eq(e.step.length, count, "the CLI's moments");
        eq(await page.getAttribute('#step-chart .step-row.peak', 'data-phase'), PHASES[e.peak_phase], 'the peak moment');
        const boxes = [];
        for (let i = 0; i < count; i++) {
          const row = rows.nth(i);
          eq(await row.getAttribute('data-phase'), PHASES[e.step[i].phase], `moment ${i}`);
          const words = row.locator('p');
          const text = await words.innerText();
          const want = gib(e.step[i].bytes);
          assert(text.includes(want), `${want} in ${text}`);
          const own = lang === 'zh' ? e.step[i].zh : e.step[i].en;
          assert(text.includes(own), `${own} in ${text}`);
          assert(lang === 'en' || hasHan(text), `Chinese words: ${text}`);
          boxes.push(await words.boundingBox());
        }
        // Each moment's words on their own line: no box meets the next.
        for (let i = 1; i < boxes.length; i++) {
          assert(boxes[i - 1].y + boxes[i - 1].height <= boxes[i].y + 0.5, `moment ${i - 1}'s words overlap moment ${i}'s`);
        }
        eq(e.step[count - 1].bytes <= e.total_bytes, true, 'no moment above the total');
        const peak = e.step.find((m) => m.phase === e.peak_phase);
        eq(peak.bytes, e.total_bytes, 'the peak moment is the total');
        const caption = await page.locator('#step-chart figcaption').innerText();
        assert(lang === 'en' || hasHan(caption), 'Chinese caption');
        noProblems(page, 'problems');
      });
    }
  }
}
