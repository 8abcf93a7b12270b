// Starts the app and registers the service worker that keeps the site working offline. The
// module names carry content hashes, filled in by `cargo xtask dist`, which then writes this
// script into index.html (its SHA-256 in the page's CSP), so that the module's download starts
// with the page rather than one round trip later.
//
// A classic script, not a module, first in the page's head, before the style sheet: the parser
// runs it as soon as it reads it, so that the module and its glue are asked for before anything
// else (an `async` module script ran only once the parser yielded, after the style sheet's
// request: 85 to 100 ms later with the CPU 4x slower, issue #43). Its work is a few fetches, so
// it holds the parser up for little. Being classic, it lives in one async function (no
// top-level `await`), and names its files against the document's address (`document.baseURI`,
// which was also the module script's own address when it was one).
//
// Three builds of the same app: `vramfit_en` and `vramfit_zh`, the calculator alone in one
// language, are the first load; `vramfit_full` has every view in both languages. The address
// (its view, a model read from a config.json or weights file or looked up on a hub, a catalog
// card, whose speed only the full build estimates, `lang=`) and the browser's language choose
// one, as the app's own `AppState::build` does. When a
// calculator build is asked later for what it lacks (a link followed, a button pressed, the
// other language), it writes its whole state to the address and calls `vramfitSwitch` with
// the build it needs: that build is fetched and compiled while the page still shows the
// current one, which is then stopped, and the new one starts from the same address. Every
// build shows the same numbers.

(async () => {
  const builds = {
    en: { glue: () => import('./{{vramfit_en.js}}'), wasm: './{{vramfit_en_bg.wasm}}' },
    zh: { glue: () => import('./{{vramfit_zh.js}}'), wasm: './{{vramfit_zh_bg.wasm}}' },
    full: {
      glue: () => import('./{{vramfit_full.js}}'),
      wasm: './{{vramfit_full_bg.wasm}}',
      css: './{{views.css}}',
    },
  };

  // The style of the views beyond the calculator, added to the page when the full build first
  // starts: settled once the sheet has loaded or failed to (the views then show, unstyled in
  // part, rather than not at all).
  function style(href) {
    return new Promise((settle) => {
      const link = Object.assign(document.createElement('link'), { rel: 'stylesheet', href });
      link.onload = link.onerror = settle;
      document.head.append(link);
    });
  }

  // The build an address asks for: `Route::parse`, `AppState::build` (its `FULL_BUILD_KEYS`
  // and more GPUs than a node holds, here `gpus` alone) and `Lang::from_url`/`from_tag` in few
  // words. Should it ever choose wrong, the build it starts hands over to the right one.
  function chosen(hash) {
    if (/^#\/(fit|mig|diagnose|faq|device)(?![\w-])|[?&]source=(config|hub)(?![^&])|[?&]gpu=[^&]|[?&]engine=(trtllm|mlx|tei)(?![^&])|[?&]mode=training(?![^&])|[?&]gpus=(9|[1-9]\d+)(?![^&])|[?&](gpus_per_node|node_link|speculative_method|draft_model|num_speculative_tokens|acceptance_rate|max_kv_size|kv_bits|kv_group_size|quantized_kv_start|wired_limit_mb|image_width|image_height|disaggregation_mode|disaggregation_transfer_backend|num_reserved_decode_tokens|host_memory|host_bandwidth)=[^&]|[?&]images=(?!0*(?:&|$))/.test(hash)) return 'full';
    let lang = null;
    for (const m of hash.matchAll(/[?&]lang=([^&]*)/g)) {
      if (m[1] === 'en') lang = 'en';
      else if (['zh', 'zh-CN', 'zh-cn'].includes(m[1])) lang = 'zh';
    }
    // The language last shown in this browser (the app keeps it under this key), else the
    // browser's own.
    let kept = null;
    try { kept = localStorage.getItem('vramfit.lang'); } catch { /* storage refused */ }
    if (kept === 'en' || kept === 'zh') lang ??= kept;
    return lang ?? ((navigator.language || '').trim().toLowerCase().startsWith('zh') ? 'zh' : 'en');
  }

  function failed(e) {
    const p = document.getElementById('loading') || document.querySelector('#app .loading');
    if (p) {
      p.textContent = typeof WebAssembly === 'object'
        ? `vramfit could not start: ${e.message} / 无法启动：${e.message}`
        : 'vramfit could not start: this browser lacks WebAssembly support. / 无法启动：浏览器不支持 WebAssembly。';
    }
    throw e;
  }

  // The module compiled while it downloads (when served as application/wasm, as GitHub Pages
  // and `cargo xtask serve` do), else once it has arrived. `cargo xtask dist` writes each module
  // also as `NAME.gz`, compressed by Zopfli, some 4 % smaller than `gzip -9` makes it: where
  // the browser can inflate it (`DecompressionStream`), that copy is fetched and inflated as it
  // arrives, still compiled while it downloads. Should it fail in any way (a server that
  // decompresses `.gz` itself, a missing file), the plain module is fetched instead.
  async function compile(url) {
    if ({{PACKED}} && typeof DecompressionStream === 'function') {
      try {
        const packed = await fetch(`${url}.gz`);
        if (!packed.ok) throw new Error(`HTTP ${packed.status}`);
        const wasm = new Response(packed.body.pipeThrough(new DecompressionStream('gzip')), {
          headers: { 'Content-Type': 'application/wasm' },
        });
        return await (WebAssembly.compileStreaming
          ? WebAssembly.compileStreaming(wasm)
          : WebAssembly.compile(await wasm.arrayBuffer()));
      } catch (e) {
        console.warn(`vramfit: ${url}.gz could not be used (${e.message}); loading the plain module`);
      }
    }
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    const type = response.headers.get('Content-Type') || '';
    if (WebAssembly.compileStreaming && type.startsWith('application/wasm')) {
      return WebAssembly.compileStreaming(response);
    }
    return WebAssembly.compile(await response.arrayBuffer());
  }

  // The page's own markup parsed (`#app` there): the script runs while the head is read, before
  // the style sheet is asked for, so that the build's downloads start first (an `async` module
  // script was measured one round trip earlier than a module file, about 100 ms of 1 s with the
  // link throttled, `cargo xtask bench`); the app itself starts once the markup it mounts into
  // is there.
  const parsed = document.readyState !== 'loading'
    ? Promise.resolve()
    : new Promise((done) => document.addEventListener('DOMContentLoaded', done, { once: true }));

  // Starts a build: its glue and compiled module fetched at once, then its `main` run; a build
  // that ran before (and was stopped) is only started again.
  const started = new Set();
  let running = null;
  async function run(name, stopping) {
    const build = builds[name];
    if (started.has(name)) {
      const glue = await build.glue();
      if (stopping) (await builds[stopping].glue()).stop();
      glue.start();
    } else {
      const [glue, module] = await Promise.all([
        build.glue(),
        compile(new URL(build.wasm, document.baseURI)),
        build.css && style(build.css),
        parsed,
      ]);
      if (stopping) (await builds[stopping].glue()).stop();
      await glue.default({ module_or_path: module });
      started.add(name);
    }
    running = name;
  }

  // Only a calculator build calls this, once per hand-over.
  let handingOver = null;

  globalThis.vramfitSwitch = (name) => {
    if (!(name in builds) || name === running) return Promise.resolve();
    handingOver ??= run(name, running).catch((e) => {
      // The current build still runs (it is stopped only once the next one is ready), and the
      // next hand-over tries again.
      failed(e);
    }).finally(() => {
      handingOver = null;
    });
    return handingOver;
  };

  try {
    await run(chosen(location.hash), null);
  } catch (e) {
    failed(e);
  }

  if ('serviceWorker' in navigator) {
    // A new version's worker takes over while this page still runs the old code: say so, once.
    const hadController = navigator.serviceWorker.controller !== null;
    navigator.serviceWorker.addEventListener('controllerchange', () => {
      if (!hadController || document.getElementById('update-notice')) return;
      const zh = document.documentElement.lang.startsWith('zh');
      const p = document.createElement('p');
      p.id = 'update-notice';
      p.className = 'notice';
      p.setAttribute('role', 'status');
      p.textContent = zh ? 'vramfit 已更新。' : 'A new version of vramfit is ready.';
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = zh ? '重新加载' : 'Reload';
      b.addEventListener('click', () => location.reload());
      p.append(' ', b);
      document.body.prepend(p);
    });
    navigator.serviceWorker.register('./sw.js', { scope: './' }).catch(() => {
      // Without a service worker the site still works, only not offline.
    });
  }
})();
