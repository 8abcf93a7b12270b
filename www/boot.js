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
