// The estimator as wasm under Node: one estimate, and the sweep of every preset × GPU × format,
// timed from JavaScript with the inputs of the native benchmarks (target/parity/bench.json,
// written by `VRAMFIT_WRITE_PARITY=1 cargo test -p vramfit --test parity_cases`).
// Prints one `{"id": …, "ns": …}` line per figure (mean nanoseconds), as `cargo xtask bench` reads.
//   node crates/xtask/bench/estimate.mjs target/npm target/parity/bench.json
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { load, caller, plain } from './load.mjs';

const [dir = 'target/npm', benchFile = 'target/parity/bench.json'] = process.argv.slice(2);
const bench = JSON.parse(readFileSync(benchFile, 'utf8'));
const m = await load(dir);
const est = caller(m);
const emit = (id, ns, runs, estimates) => console.log(JSON.stringify({ id, ns, runs, estimates }));

/** Mean time of `f` over enough runs for `budgetMs`, after a warm-up. */
function time(f, budgetMs) {
  const warm = performance.now();
  while (performance.now() - warm < budgetMs / 4) f();
  let runs = 0;
  const start = performance.now();
  do { f(); runs++; } while (performance.now() - start < budgetMs);
  return { ns: ((performance.now() - start) * 1e6) / runs, runs };
}

for (const [id, input] of Object.entries(bench.single)) {
  const r = est.call(input);
  if (r.error) throw new Error(`${id}: ${r.error}`);
  const { ns, runs } = time(() => est.call(input), 2000);
  emit(id, ns, runs);
}

// Sweeps of 1, 10 and every preset, as natively (ids `sweep/models/<presets>`, with the estimates).
const sweep = (models) => {
  let n = 0;
  for (const model of bench.presets.slice(0, models)) {
    for (const gpu of bench.gpus) {
      for (const quantization of bench.formats) {
        est.call({ ...bench.default, model, gpu, quantization });
        n++;
      }
    }
  }
  return n;
};
for (const models of [1, 10, bench.presets.length]) {
  const n = models * bench.gpus.length * bench.formats.length;
  const { ns, runs } = time(() => sweep(models), models > 10 ? 1 : 2000);
  emit(`sweep/models/${models}`, ns, runs, n);
}
console.error(`node: timed ${est.how} of ${dir}`);
void plain;
