// Minifies the site's scripts, style sheets and web app manifest in place, for `cargo xtask dist`
// (see `site.rs`): `node minify.mjs [--script] FILE…`. A `.js` file is an ES module (the
// wasm-bindgen glue), or a classic script after `--script` (`www/boot.js`), minified with terser; a `.css` file with lightningcss; a `.webmanifest` (JSON)
// is written again without its spaces. Both come from the workspace's npm
// tools (`package.json`), resolved from the repository root given in `VRAMFIT_ROOT`.
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.VRAMFIT_ROOT ?? process.cwd(), "package.json"));
const { minify } = require("terser");
const { transform } = require("lightningcss");

// `--script`: the `.js` files that follow are classic scripts (`www/boot.js`, written into
// index.html as one), which terser must not treat as modules (it could lift an async function's
// body to a top-level `await`, which a classic script cannot have).
let script = false;
for (const file of process.argv.slice(2)) {
  if (file === "--script") {
    script = true;
    continue;
  }
  const code = await readFile(file, "utf8");
  let out;
  if (file.endsWith(".js")) {
    // ES2020 keeps what the browsers the site supports parse (every WebAssembly-capable one).
    const r = await minify(code, { module: !script, ecma: 2020, compress: { passes: 2 }, mangle: true });
    out = r.code;
  } else if (file.endsWith(".css")) {
    out = Buffer.from(transform({ filename: file, code: Buffer.from(code), minify: true }).code).toString();
  } else if (file.endsWith(".webmanifest")) {
    out = JSON.stringify(JSON.parse(code));
  } else {
    throw new Error(`minify.mjs: ${file} is neither .js, .css nor .webmanifest`);
  }
  if (!out || out.length === 0) throw new Error(`minify.mjs: ${file} came out empty`);
  await writeFile(file, out);
}
