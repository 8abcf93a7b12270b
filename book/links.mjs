// Every relative link in the built books (book/en/book, book/zh/book) names a file that exists:
// mdBook turns `x.md` into `x.html` but a chapter's README.md into index.html, so a link to
// `formulas/README.md` would 404. Run from the repository root after `mdbook build`:
//   node book/links.mjs
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { join, dirname, resolve } from 'node:path';

function* html(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* html(p);
    else if (e.name.endsWith('.html')) yield p;
  }
}

let broken = 0;
let checked = 0;
for (const lang of ['en', 'zh']) {
  const root = join('book', lang, 'book');
  for (const file of html(root)) {
    // The print page and the 404 page use the site's absolute base.
    if (file.endsWith('404.html')) continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\bhref="([^"]*)"/g)) {
      const href = m[1].split('#')[0].split('?')[0];
      if (!href || /^[a-z]+:/i.test(href) || href.startsWith('/') || href.startsWith('//')) continue;
      checked++;
      const target = resolve(dirname(file), decodeURIComponent(href));
      const ok = existsSync(target) && (statSync(target).isFile() || existsSync(join(target, 'index.html')));
      if (!ok) {
        broken++;
        console.error(`${file}: broken link ${m[1]}`);
      }
    }
  }
}
console.log(`book links: ${checked} relative links checked, ${broken} broken`);
process.exit(broken ? 1 : 0);
