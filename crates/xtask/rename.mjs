// Gives a wasm-bindgen module's glue the short import and export names that wasm-opt's
// `--minify-imports-and-exports-and-modules` gave the module (see `tools::wasm_opt`):
// `node rename.mjs MODULE.wasm MAP.json GLUE.js [GLUE.d.ts]`, rewriting the glue in place.
//
// MAP.json is the mapping wasm-opt prints: `{"imports": [[module, old, new], …], "exports":
// [[old, new], …]}`. The glue names each import once, as a key of its import object, and reaches
// each export as `wasm.NAME`; the TypeScript declarations list the exports in `InitOutput` as
// `readonly NAME:`, and only there are they renamed. Every rename is checked: an import key found other than exactly once, or a
// name the minified module imports that the rewritten glue does not provide, stops the build.
import { readFile, writeFile } from "node:fs/promises";

const [wasmFile, mapFile, ...glueFiles] = process.argv.slice(2);
if (!wasmFile || !mapFile || glueFiles.length === 0) {
  throw new Error("usage: node rename.mjs MODULE.wasm MAP.json GLUE.js [GLUE.d.ts]");
}
const map = JSON.parse(await readFile(mapFile, "utf8"));
const wasm = new WebAssembly.Module(await readFile(wasmFile));
const imports = WebAssembly.Module.imports(wasm);
const exports = new Set(WebAssembly.Module.exports(wasm).map((e) => e.name));

const oldModules = [...new Set(map.imports.map(([m]) => m))];
const newModules = [...new Set(imports.map((i) => i.module))];
if (oldModules.length !== 1 || newModules.length !== 1) {
  throw new Error(`rename.mjs: expected one import module, found ${oldModules} → ${newModules}`);
}
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

for (const file of glueFiles) {
  let code = await readFile(file, "utf8");
  const replaceAll = (pattern, to, what, exactlyOnce) => {
    let n = 0;
    code = code.replace(pattern, (...m) => {
      n += 1;
      return typeof to === "function" ? to(...m) : to;
    });
    if (exactlyOnce && n !== 1) throw new Error(`rename.mjs: ${file}: ${what} found ${n} times, not once`);
  };
  if (file.endsWith(".js")) {
    replaceAll(
      new RegExp(`${escape(JSON.stringify(oldModules[0]))}(\\s*:)`, "g"),
      (_, colon) => `${JSON.stringify(newModules[0])}${colon}`,
      `the import module ${oldModules[0]}`,
      true,
    );
    for (const [, from, to] of map.imports) {
      replaceAll(new RegExp(`(?<![\\w$])${escape(from)}(?=\\s*:)`, "g"), to, `the import ${from}`, true);
    }
    for (const [from, to] of map.exports) {
      replaceAll(new RegExp(`(?<![\\w$])wasm\\.${escape(from)}(?![\\w$])`, "g"), `wasm.${to}`, from, false);
    }
    for (const { name } of imports) {
      if (!new RegExp(`(?<![\\w$])${escape(name)}\\s*:`).test(code)) {
        throw new Error(`rename.mjs: ${file} gives no import named ${name}`);
      }
    }
    for (const [used] of code.matchAll(/(?<![\w$])wasm\.([\w$]+)/g)) {
      const name = used.slice("wasm.".length);
      if (!exports.has(name)) throw new Error(`rename.mjs: ${file} uses ${used}, which the module does not export`);
    }
  } else {
    // Only inside `InitOutput`: another interface may well have a field named `memory`.
    const start = code.indexOf("export interface InitOutput {");
    const end = code.indexOf("\n}", start);
    if (start < 0 || end < 0) throw new Error(`rename.mjs: ${file} declares no InitOutput`);
    const before = code.slice(0, start);
    const after = code.slice(end);
    code = code.slice(start, end);
    for (const [from, to] of map.exports) {
      replaceAll(new RegExp(`(readonly\\s+)${escape(from)}(?=\\s*:)`, "g"), (_, r) => `${r}${to}`, from, false);
    }
    code = before + code + after;
  }
  await writeFile(file, code);
}
