// What the package's browser tests share: a static server over one folder on loopback, headless
// Chromium with the flags of tests/e2e (a fresh profile), and the list of a page's problems.
//
// Env: CHROMIUM (/usr/bin/chromium).
import http from "node:http";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

const FLAGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".wasm": "application/wasm", ".css": "text/css" };

/// Serves `root` on 127.0.0.1 (a free port): `{ base, close }`, `base` ending in `/`.
export async function serve(root) {
  const server = http.createServer((req, res) => {
    const p = path.join(root, decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (!p.startsWith(root)) { res.writeHead(403).end(); return; }
    try {
      const body = readFileSync(p);
      res.writeHead(200, { "content-type": TYPES[path.extname(p)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { base: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
}

/// Headless Chromium on a fresh profile: `{ context, close }`.
export async function browser() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "vramfit-chromium-"));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: FLAGS,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/// The page's problems from now on, as they happen: console errors and warnings, uncaught
/// errors, failed requests, HTTP errors, and any request leaving `origin`.
export function problemsOf(page, origin) {
  const problems = [];
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") problems.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()}`));
  page.on("response", (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  page.on("request", (r) => { if (!r.url().startsWith(origin) && !r.url().startsWith("data:")) problems.push(`foreign request: ${r.url()}`); });
  return problems;
}

/// `serve(root)` and `browser()` together: `{ base, context, close }`.
export async function serveInBrowser(root) {
  const server = await serve(root);
  const chrome = await browser();
  return {
    base: server.base,
    context: chrome.context,
    close: async () => {
      await chrome.close();
      server.close();
    },
  };
}
