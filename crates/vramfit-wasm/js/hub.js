// `fetchModel(text, options)`: a model to `estimate` from a public repo of Hugging Face (or a
// mirror of it) or ModelScope, a GGUF file at a web address, or an Ollama registry tag, looked up
// with `fetch` only when called. Every decision (the files to read, the byte ranges, the bounds,
// how each answer is read, every error's words) is the Rust crate's `vramfit::hub::Lookup`,
// compiled into this module as `HubLookup`: the CLI's `vramfit estimate --hub` and the site run
// the same state machine, each with its own HTTP client. This file only makes the requests.
//
// It lives in `vramfit/full`: the main module stays the estimator alone, and a page that never
// looks a model up never downloads the larger one.
import { HubLookup } from "./vramfit_full.js";

const TIMEOUT_MS = 30_000;

// A failure the page saw itself (no answer): its words for `HubLookup.failed`.
function noAnswer(e, timeoutMs) {
  const timedOut = e?.name === "TimeoutError" || e?.name === "AbortError";
  return timedOut
    ? { kind: "timeout", seconds: timeoutMs / 1000 }
    : { kind: "network", detail: e?.message ?? String(e) };
}

// One GET of the lookup: the `Range` and `Accept` it asks for, the body read up to `limit + 1`
// bytes (a server that ignores the range is not downloaded whole), the headers the lookup reads.
async function get(fetchFn, r, timeoutMs) {
  const headers = {};
  if (r.range) headers.Range = `bytes=${r.range[0]}-${r.range[1]}`;
  if (r.accept) headers.Accept = r.accept;
  let res;
  try {
    res = await fetchFn(r.url, { headers, signal: AbortSignal.timeout(timeoutMs), referrerPolicy: "no-referrer" });
  } catch (e) {
    return { failed: noAnswer(e, timeoutMs) };
  }
  const header = (k) => res.headers.get(k);
  const number = (s) => {
    const n = Number.parseInt(s ?? "", 10);
    return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
  };
  const reply = {
    status: res.status,
    code: header("x-error-code") ?? undefined,
    retryAfter: number(header("retry-after")),
    total: number((header("content-range") ?? "").split("/")[1]),
    body: new Uint8Array(0),
  };
  if (res.status !== 200 && res.status !== 206) {
    await res.body?.cancel();
    return { reply };
  }
  const chunks = [];
  let got = 0;
  try {
    const reader = res.body.getReader();
    while (got <= r.limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      got += value.length;
    }
    if (got > r.limit) await reader.cancel();
  } catch (e) {
    return { failed: noAnswer(e, timeoutMs) };
  }
  const body = new Uint8Array(Math.min(got, r.limit + 1));
  let at = 0;
  for (const c of chunks) {
    const n = Math.min(c.length, body.length - at);
    body.set(c.subarray(0, n), at);
    at += n;
  }
  reply.body = body;
  return { reply };
}

// The lookup's error, with what the page knows of it: the HTTP status it saw, or that no answer
// came (`timeout`, `network`).
function withCause(e, seen) {
  if (seen?.reply?.status && seen.reply.status !== 200 && seen.reply.status !== 206) e.status = seen.reply.status;
  if (seen?.failed) e.failure = seen.failed.kind;
  return e;
}

/**
 * Looks a model up and returns it with its input to `estimate`: see hub.d.ts.
 */
export async function fetchModel(text, options = {}) {
  const timeoutMs = Math.max(1, Math.min(600_000, options.timeout ?? TIMEOUT_MS));
  const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  const lookup = new HubLookup(String(text), options.hub, options.endpoint, options.file);
  try {
    for (let r = lookup.request(); r; r = lookup.request()) {
      const seen = await get(fetchFn, r, timeoutMs);
      try {
        if (seen.failed) lookup.failed(seen.failed.kind, seen.failed.detail ?? "", seen.failed.seconds ?? 0);
        else lookup.answer(seen.reply.status, seen.reply.code, seen.reply.retryAfter, seen.reply.total, seen.reply.body);
      } catch (e) {
        throw withCause(e, seen);
      }
    }
    return lookup.finish();
  } finally {
    lookup.free();
  }
}
