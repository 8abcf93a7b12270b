// Loads a wasm-bindgen module (`init` is its default export) from `url`: read from disk under
// Node and Deno, which have no `fetch` for `file:` URLs; fetched everywhere else.
export async function load(init, url) {
  await init({ module_or_path: url.protocol === "file:" ? await readLocal(url) : url });
}

// The module name is in a variable, and marked for webpack and Vite, so that browser bundles
// never try to resolve it.
async function readLocal(url) {
  const fs = "node:fs/promises";
  const { readFile } = await import(/* webpackIgnore: true */ /* @vite-ignore */ fs);
  return readFile(url);
}
