// Starts the app: loads the wasm (its name carries a content hash, filled in by `cargo xtask
// dist`) and registers the service worker that keeps the site working offline.
import init from './{{vramfit_web.js}}';

try {
  await init({ module_or_path: new URL('./{{vramfit_web_bg.wasm}}', import.meta.url) });
} catch (e) {
  const p = document.getElementById('loading');
  if (p) p.textContent = 'vramfit could not start: this browser lacks WebAssembly support. / 无法启动：浏览器不支持 WebAssembly。';
  throw e;
}

if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('./sw.js', { scope: './' }).catch(() => {
    // Without a service worker the site still works, only not offline.
  });
}
