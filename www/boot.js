// Starts the app and registers the service worker that keeps the site working offline. The
// module names carry content hashes, filled in by `cargo xtask dist`.
//
// Two builds of the same app: `vramfit_web`, the calculator alone, is the first load (what
// index.html preloads); `vramfit_full` has every view. An address that asks for another view,
// or for a model read from a config.json or weights file, starts the full build at once. When
// the calculator-only build meets such an address later (a link followed, a button pressed),
// it writes its whole state to the address and calls `vramfitFull`: the full build is fetched
// and compiled while the page still shows the calculator's build, then that build is stopped
// and the full one starts from the same address. Either build alone shows the same numbers.

const FULL = /^#\/(fit|mig|diagnose|faq|device)(?![\w-])|[?&]source=config(?![^&])/;
const calcBuild = { glue: () => import('./{{vramfit_web.js}}'), wasm: './{{vramfit_web_bg.wasm}}' };
const fullBuild = { glue: () => import('./{{vramfit_full.js}}'), wasm: './{{vramfit_full_bg.wasm}}' };

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
// and `cargo xtask serve` do), else once it has arrived.
async function compile(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  const type = response.headers.get('Content-Type') || '';
  if (WebAssembly.compileStreaming && type.startsWith('application/wasm')) {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

// The build's glue and its compiled module, fetched at once.
async function load(build) {
  const [glue, module] = await Promise.all([
    build.glue(),
    compile(new URL(build.wasm, import.meta.url)),
  ]);
  return { glue, module };
}

// Only the calculator's build calls this (the full build has every page), once per hand-over.
let handingOver = null;

globalThis.vramfitFull = () => {
  handingOver ??= load(fullBuild).then(async ({ glue, module }) => {
    (await calcBuild.glue()).stop();
    await glue.default({ module_or_path: module });
  }).catch((e) => {
    // The calculator's build still runs (it is stopped only once the full one is ready), and
    // the next page it lacks tries again.
    handingOver = null;
    failed(e);
  });
  return handingOver;
};

try {
  const build = FULL.test(location.hash) ? fullBuild : calcBuild;
  const { glue, module } = await load(build);
  await glue.default({ module_or_path: module });
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
