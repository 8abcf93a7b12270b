// End-to-end tests of the training form's reader of a stack's config file ("Your training
// config"), registered by run.mjs with its harness (`h`), in English and Chinese: the page
// reads the file as `vramfit estimate --config` does, and the form then estimates like the CLI.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TRL_SFT = [
  'model_name_or_path: Qwen/Qwen3-8B',
  'per_device_train_batch_size: 2',
  'max_length: 2048',
  'use_peft: true',
  'lora_r: 16',
  'load_in_4bit: true',
  'learning_rate: 2.0e-4',
  '',
].join('\n');

export function trainingTests(h) {
  const { test, browser, watchedPage, go, eq, assert, noProblems, shown, sameAsCli, cli, cliArgs, hasHan, gib } = h;

  for (const lang of ['en', 'zh']) {
    test(`a pasted TRL config fills the training form as the CLI's --config reads it (${lang})`, async () => {
      const page = await watchedPage(await browser());
      await go(page, `#/calc?lang=${lang}&mode=training`, 'calc');
      await page.locator('#training-config summary').click();
      await page.fill('#f-training-config', TRL_SFT);
      await page.locator('#training-config-read').click();
      await page.locator('#training-config-read-as').waitFor();
      eq(await page.getAttribute('#training-config-read-as', 'data-format'), 'trl', 'read as TRL');
      const notRead = await page.locator('#training-config-not-read').innerText();
      assert(notRead.includes(lang === 'zh' ? 'learning_rate（第 7 行）' : 'learning_rate (line 7)'), notRead);
      assert(lang === 'en' || hasHan(notRead), 'Chinese words');
      eq(await page.inputValue('#f-batch'), '2', 'batch from the file');
      eq(await page.inputValue('#f-seq_len'), '2048', 'sequence length from the file');
      const file = join(mkdtempSync(join(tmpdir(), 'vramfit-tc-')), 'sft.yaml');
      writeFileSync(file, TRL_SFT);
      sameAsCli(await shown(page), cli(['estimate', '--json', '--config', file]), 'the form after reading');
      noProblems(page, 'problems');
    });
  }

  // The same file dropped on the panel rather than pasted: read at once, the same fields set.
  for (const lang of ['en', 'zh']) {
    test(`a dropped TRL config is read as the pasted one (${lang})`, async () => {
      const page = await watchedPage(await browser());
      await go(page, `#/calc?lang=${lang}&mode=training`, 'calc');
      await page.locator('#training-config summary').click();
      const dropped = await page.evaluateHandle((text) => {
        const d = new DataTransfer();
        d.items.add(new File([text], 'sft.yaml', { type: 'text/yaml' }));
        return d;
      }, TRL_SFT);
      await page.dispatchEvent('#training-config-drop', 'drop', { dataTransfer: dropped });
      await page.locator('#training-config-read-as').waitFor();
      eq(await page.getAttribute('#training-config-read-as', 'data-format'), 'trl', 'read as TRL');
      eq(await page.inputValue('#f-training-config'), TRL_SFT, 'the file shown');
      eq(await page.inputValue('#f-batch'), '2', 'batch from the file');
      eq(await page.inputValue('#f-seq_len'), '2048', 'sequence length from the file');
      noProblems(page, 'problems');
    });
  }

  // Look rather than read: a training step's three moments drawn on one scale, the peak named,
  // each moment's total the CLI's (the chart never says another peak than the verdict).
  for (const lang of ['en', 'zh']) {
    test(`a training step is drawn moment by moment, the peak the CLI's (${lang})`, async () => {
      const q = 'model=meta-llama%2FLlama-3.1-8B&mode=training&lora_rank=16&gpu=h100-sxm5-80gb';
      const page = await watchedPage(await browser());
      await go(page, `#/calc?lang=${lang}&${q}`, 'calc');
      await page.locator('#step-chart').waitFor();
      const rows = page.locator('#step-chart .step-row');
      eq(await rows.count(), 3, 'three moments');
      const e = cli(cliArgs(q));
      const phases = { forward_loss: 'ForwardLoss', backward: 'Backward', optimizer_step: 'OptimizerStep' };
      eq(await page.getAttribute('#step-chart .step-row.peak', 'data-phase'), phases[e.peak_phase], 'the peak moment');
      for (let i = 0; i < 3; i++) {
        const text = await rows.nth(i).locator('p').innerText();
        const want = gib(e.step[i].bytes);
        assert(text.includes(want), `${want} in ${text}`);
      }
      const caption = await page.locator('#step-chart figcaption').innerText();
      assert(lang === 'en' || hasHan(caption), 'Chinese caption');
      noProblems(page, 'problems');
    });
  }

  const QLORA_ZERO3 = 'mode=training&batch=2&seq_len=4096&lora_rank=16&qlora=true&zero=3&offload=cpu&gpus=4&grad_checkpointing=full';
  for (const lang of ['en', 'zh']) {
    test(`run it: a fine-tuning run's launch is TRL's files and line, as the CLI writes them (${lang})`, async () => {
      const page = await watchedPage(await browser());
      await go(page, `#/calc?lang=${lang}&${QLORA_ZERO3}`, 'calc');
      await page.locator('#launch pre').waitFor();
      const text = await page.locator('#launch pre').innerText();
      const args = cliArgs(QLORA_ZERO3).filter((a) => a !== '--json').slice(1);
      const l = cli(['launch', ...args, '--json']);
      eq(text.trim(), l.script.trim(), 'the script is the CLI launch script');
      for (const part of ["cat > train.yaml <<'EOF'", 'load_in_4bit: true', 'deepspeed: ds_config.json', 'num_processes: 4', '"stage": 3', 'trl sft --config train.yaml']) {
        assert(text.includes(part), `${part} in: ${text}`);
      }
      assert(lang === 'en' || hasHan(await page.locator('#launch p.hint').nth(1).innerText()), 'Chinese note on the dataset');
      noProblems(page, 'problems');
    });
  }

  test('a config with a bad value names its key and line, and changes nothing', async () => {
    const page = await watchedPage(await browser());
    await go(page, '#/calc?lang=en&mode=training&batch=3', 'calc');
    await page.locator('#training-config summary').click();
    await page.fill('#f-training-config', 'output_dir: o\nper_device_train_batch_size: many\n');
    await page.locator('#training-config-read').click();
    await page.locator('#training-config-error').waitFor();
    const e = await page.locator('#training-config-error').innerText();
    assert(e.includes('per_device_train_batch_size') && e.includes('line 2'), e);
    eq(await page.inputValue('#f-batch'), '3', 'the form unchanged');
    noProblems(page, 'problems');
  });
}
