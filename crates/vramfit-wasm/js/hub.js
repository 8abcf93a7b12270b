// `fetchModel(id, options)`: any public repo of Hugging Face (or a mirror of it) or ModelScope as
// a model for `estimate`, looked up with `fetch` only when called. It reads the repo's file list,
// its `config.json` and its weights' headers by HTTP Range (8 bytes, then the JSON header they
// announce; a GGUF file's first megabyte, grown to what its header asks), never the weights, and
// reads them with the package's own parsers. The same steps and the same result as the CLI's
// `vramfit estimate --hub --json` (its `hub` object; `vramfit::hub` in the Rust crate).
//
// It lives in `vramfit/full` because the readers it needs (`parseConfig`, the header readers)
// are in that module only: the main module stays the small estimator under its 100 KB budget,
// and a page that never looks a model up never downloads the larger one.
import { estimate, parseConfig, parseGgufHeader, parseSafetensorsHeader } from "./vramfit_full.js";

const ENDPOINTS = { huggingface: "https://huggingface.co", modelscope: "https://www.modelscope.cn" };
const MAX_HEADER = 64 * 2 ** 20; // the most bytes read of one file's header
const FIRST_GGUF = 2 ** 20; // the first GGUF prefix read
const MAX_TEXT = 16 * 2 ** 20; // the largest file list, config.json or index read
const GGUF_PREFERRED = ["q4_k_m", "q4_k_s", "q8_0", "q5_k_m"];

// An `Error` whose message reads like the CLI's (`hub: …; accepted: …`), with `kind`.
function hubError(kind, problem, accepted, extra = {}) {
  return Object.assign(new Error(`hub: ${problem}; accepted: ${accepted}`), { field: "hub", kind, ...extra });
}

// The repo id in `text` (also a repo's address on a hub), checked as the hubs check names.
export function repoId(text) {
  let t = String(text).trim();
  const scheme = t.indexOf("://");
  if (scheme >= 0) {
    const slash = t.indexOf("/", scheme + 3);
    t = slash < 0 ? "" : t.slice(slash + 1);
  }
  if (t.startsWith("models/")) t = t.slice(7);
  const parts = t.split("/");
  const tailOk = parts.length === 2 || (parts.length > 2 && (scheme >= 0 || ["tree", "blob", "resolve", "files", ""].includes(parts[2])));
  const partOk = (p) => /^[A-Za-z0-9._-]{1,96}$/.test(p) && !/^[.-]|[.-]$|--|\.\./.test(p);
  if (tailOk && partOk(parts[0] ?? "") && partOk(parts[1] ?? "")) return `${parts[0]}/${parts[1]}`;
  throw hubError("id", `\`${text}\` is not a repo id`, "OWNER/NAME as the hub writes it, e.g. Qwen/Qwen2.5-7B-Instruct (letters, digits, . _ -)");
}

function hubOf(options) {
  const raw = options.endpoint ?? ENDPOINTS[options.hub === "modelscope" ? "modelscope" : "huggingface"];
  const endpoint = String(raw).trim().replace(/\/+$/, "");
  if (!/^https?:\/\/[A-Za-z0-9.:-]+(\/[^?#@\s]*)?$/.test(endpoint)) {
    throw hubError("endpoint", `\`${raw}\` is not the address of a hub`, "an address such as https://huggingface.co, https://hf-mirror.com or https://www.modelscope.cn");
  }
  const kind = options.hub ?? (endpoint.toLowerCase().includes("modelscope") ? "modelscope" : "huggingface");
  if (kind !== "huggingface" && kind !== "modelscope") {
    throw hubError("endpoint", `\`${kind}\` is not a kind of hub`, "huggingface (Hugging Face or a mirror of it) or modelscope");
  }
  return { kind, endpoint };
}

const encodePath = (p, keepSlash) => [...new TextEncoder().encode(p)]
  .map((b) => (/[A-Za-z0-9._~-]/.test(String.fromCharCode(b)) || (keepSlash && b === 47) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, "0")}`))
  .join("");

const listUrl = (hub, repo) => hub.kind === "modelscope"
  ? `${hub.endpoint}/api/v1/models/${repo}/repo/files?Revision=master&Recursive=true`
  : `${hub.endpoint}/api/models/${repo}`;
const fileUrl = (hub, repo, path) => hub.kind === "modelscope"
  ? `${hub.endpoint}/api/v1/models/${repo}/repo?Revision=master&FilePath=${encodePath(path, false)}`
  : `${hub.endpoint}/${repo}/resolve/main/${encodePath(path, true)}`;
const pageUrl = (hub, repo) => hub.kind === "modelscope" ? `${hub.endpoint}/models/${repo}` : `${hub.endpoint}/${repo}`;

// The error for a failed request, as `vramfit::hub::failure` words it.
function failure(hub, repo, file, f) {
  const at = hub.endpoint;
  const what = file || "its file list";
  const mirror = hub.kind === "huggingface" ? "a mirror (HF_ENDPOINT=https://hf-mirror.com) or ModelScope" : "Hugging Face or a mirror of it";
  if (f.status === 401 || f.status === 403) {
    if (f.code !== "RepoNotFound") {
      const why = f.code === "GatedRepo" ? "gated" : "gated, private or missing";
      return hubError("gated", `\`${repo}\` on ${at} is ${why}: HTTP ${f.status} for ${what}`, `a public repo (vramfit sends no token): for a gated one, accept its licence at ${pageUrl(hub, repo)}, download its config.json and read that file instead`, { status: f.status });
    }
  }
  if (f.status === 404 || f.code === "RepoNotFound") {
    if (!file || f.code === "RepoNotFound") {
      return hubError("missing", `\`${repo}\` is not on ${at} (HTTP ${f.status}): it does not exist, or it is private`, "the OWNER/NAME of a public repo, as its page writes it (letters and case as shown)", { status: f.status });
    }
    return hubError("missing", `\`${repo}\` on ${at} has no ${what} (HTTP ${f.status})`, `a repo with a config.json and safetensors or GGUF weights (${pageUrl(hub, repo)})`, { status: f.status });
  }
  if (f.status === 429) {
    const wait = f.retryAfter ? ` ${f.retryAfter} s` : "";
    return hubError("rate-limited", `${at} is limiting requests (HTTP 429) while reading ${what} of \`${repo}\``, `a later try: wait${wait} and ask again (a model once read is kept in the cache), or use ${mirror}`, { status: 429 });
  }
  if (f.status) {
    return hubError("status", `${at} answered HTTP ${f.status} for ${what} of \`${repo}\``, `a hub that answers: try again later, or use ${mirror}`, { status: f.status });
  }
  if (f.timeout) {
    return hubError("timeout", `${at} did not answer within ${f.timeout} s for ${what} of \`${repo}\``, `a reachable hub: check the network, or use ${mirror}`);
  }
  if (f.tooLarge !== undefined) {
    return hubError("too-large", `${what} of \`${repo}\` announces a header of ${f.tooLarge} bytes, over the 64 MiB vramfit reads`, "a checkpoint whose headers are at most 64 MiB; or its config.json read alone");
  }
  if (f.tooLong !== undefined) {
    return hubError("too-large", `${what} of \`${repo}\` has ${f.tooLong} bytes, over the 16 MiB vramfit reads of such a file`, `a hub's own answer: check that ${at} is a Hugging Face or ModelScope hub`);
  }
  if (f.unreadable) {
    return hubError("unreadable", `${at} sent for ${what} of \`${repo}\` what vramfit cannot read: ${f.unreadable}`, `the hub's own answer: check that ${at} is a Hugging Face or ModelScope hub`);
  }
  return hubError("network", `${at} could not be reached for ${what} of \`${repo}\`: ${f.network}`, `a reachable hub: check the network, or use ${mirror}`);
}

// A reader's error about `file` (the package's `field: problem; accepted: …`) as the hub's.
function inFile(hub, repo, file, e, params) {
  const m = /^(.*?): (.*); accepted: (.*)$/s.exec(e.message) ?? [null, "", e.message, ""];
  const field = m[1].startsWith(file) ? m[1] : `${file}: ${m[1]}`;
  const quick = params ? `; or its parameter count alone: --params ${params}` : "";
  return hubError("file", `\`${repo}\` (${hub.endpoint}), ${field}: ${m[2]}`, `${m[3]}${quick}`);
}

// `name-00002-of-00003.gguf` → ["name", 2].
function splitPart(path) {
  const m = /^(.*)-(\d{5})-of-\d{5}\.gguf$/.exec(path);
  return m ? [m[1], Number(m[2])] : null;
}

// The files to read, as `vramfit::hub::plan` chooses them.
function plan(hub, repo, files, gguf) {
  const has = (p) => files.some((f) => f.path === p);
  const ggufs = [];
  for (const p of files.map((f) => f.path).filter((p) => /\.gguf$/i.test(p) && !/mmproj/i.test(p)).sort()) {
    const part = splitPart(p);
    const model = part && part[1] > 1 ? ggufs.find((m) => splitPart(m[0])?.[0] === part[0]) : null;
    if (model) model.push(p);
    else if (!part || part[1] <= 1) ggufs.push([p]);
  }
  const choices = ggufs.map((m) => m[0]);
  let weights = { kind: "none" };
  const st = files.map((f) => f.path).filter((p) => !p.includes("/") && p.endsWith(".safetensors") && p.startsWith("model"));
  if (has("model.safetensors.index.json") && !gguf) weights = { kind: "index", file: "model.safetensors.index.json" };
  else if (has("model.safetensors") && !gguf) weights = { kind: "safetensors", files: ["model.safetensors"] };
  else if (st.length && !gguf) weights = { kind: "safetensors", files: st };
  else if (ggufs.length || gguf) {
    let pick;
    if (gguf) {
      const w = gguf.toLowerCase();
      pick = ggufs.find((m) => m[0].toLowerCase() === w) ?? ggufs.find((m) => m[0].toLowerCase().includes(w));
      if (!pick) {
        throw hubError("gguf", `\`${repo}\` has no GGUF file matching \`${gguf}\``, `one of its GGUF files (${choices.join(", ") || "none"}), by name or a part of it such as Q4_K_M (${pageUrl(hub, repo)})`);
      }
    } else {
      pick = GGUF_PREFERRED.map((t) => ggufs.find((m) => m[0].toLowerCase().includes(t))).find(Boolean) ?? ggufs[0];
    }
    weights = { kind: "gguf", files: pick };
  }
  return { config: has("config.json"), weights, choices };
}

class Client {
  constructor(hub, repo, timeout, fetchFn) {
    Object.assign(this, { hub, repo, timeout, fetchFn, files: [], bytes: 0 });
  }

  async get(url, file, range, limit) {
    const headers = range ? { Range: `bytes=${range[0]}-${range[1]}` } : {};
    let res;
    try {
      res = await this.fetchFn(url, { headers, signal: AbortSignal.timeout(this.timeout), referrerPolicy: "no-referrer" });
    } catch (e) {
      const timedOut = e?.name === "TimeoutError" || e?.name === "AbortError";
      throw failure(this.hub, this.repo, file, timedOut ? { timeout: this.timeout / 1000 } : { network: e?.message ?? String(e) });
    }
    const ok = res.status === 200 || (res.status === 206 && range);
    if (!ok) {
      await res.body?.cancel();
      const retry = Number.parseInt(res.headers.get("retry-after") ?? "", 10);
      throw failure(this.hub, this.repo, file, { status: res.status, code: res.headers.get("x-error-code"), retryAfter: Number.isFinite(retry) ? retry : null });
    }
    if (res.status === 200 && range && range[0] > 0) {
      await res.body?.cancel();
      throw failure(this.hub, this.repo, file, { unreadable: "it ignored the byte range asked for" });
    }
    const total = Number.parseInt((res.headers.get("content-range") ?? "").split("/")[1] ?? "", 10);
    // Read up to `limit` bytes, then stop the download (a hub that ignores the range).
    const chunks = [];
    let got = 0;
    try {
      const reader = res.body.getReader();
      while (got < limit) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        got += value.length;
      }
      if (got >= limit) await reader.cancel();
    } catch (e) {
      const timedOut = e?.name === "TimeoutError" || e?.name === "AbortError";
      throw failure(this.hub, this.repo, file, timedOut ? { timeout: this.timeout / 1000 } : { network: e?.message ?? String(e) });
    }
    const body = new Uint8Array(Math.min(got, limit));
    let at = 0;
    for (const c of chunks) {
      body.set(c.subarray(0, body.length - at), at);
      at += Math.min(c.length, body.length - at);
    }
    this.bytes += body.length;
    if (file && this.files.at(-1) !== file) this.files.push(file);
    return { body, total: Number.isFinite(total) ? total : null };
  }

  async text(url, file) {
    const { body } = await this.get(url, file, null, MAX_TEXT + 1);
    if (body.length > MAX_TEXT) throw failure(this.hub, this.repo, file, { tooLong: body.length });
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(body);
    } catch (e) {
      throw failure(this.hub, this.repo, file, { unreadable: e.message });
    }
  }

  async json(url, file) {
    const text = await this.text(url, file);
    try {
      return JSON.parse(text);
    } catch (e) {
      throw failure(this.hub, this.repo, file, { unreadable: e.message });
    }
  }

  async range(file, a, b) {
    const r = await this.get(fileUrl(this.hub, this.repo, file), file, [a, b], b - a + 1);
    if (r.body.length < b - a + 1 && !(r.total !== null && b >= r.total)) {
      throw failure(this.hub, this.repo, file, { unreadable: `${r.body.length} bytes where ${b - a + 1} were asked for` });
    }
    return r;
  }

  // The safetensors `files`' headers, read as one: their tensors joined into one header.
  async safetensors(files) {
    const tensors = {};
    for (const f of files) {
      const { body: first } = await this.range(f, 0, 7);
      if (first.length < 8) throw failure(this.hub, this.repo, f, { unreadable: `${first.length} bytes where 8 were asked for` });
      const n = Number(new DataView(first.buffer, first.byteOffset, 8).getBigUint64(0, true));
      if (n > MAX_HEADER) throw failure(this.hub, this.repo, f, { tooLarge: n });
      if (n < 2) throw inFile(this.hub, this.repo, f, new Error(`safetensors: the header length is ${n}; accepted: a safetensors file (its first 8 bytes give the JSON header's length)`));
      const { body } = await this.range(f, 8, 8 + n - 1);
      let header;
      try {
        header = JSON.parse(new TextDecoder().decode(body));
      } catch (e) {
        throw inFile(this.hub, this.repo, f, new Error(`safetensors: the header is not JSON: ${e.message}; accepted: a safetensors header: {name: {dtype, shape, data_offsets}}`));
      }
      for (const [k, v] of Object.entries(header)) {
        if (k !== "__metadata__" || !("__metadata__" in tensors)) tensors[k] = v;
      }
    }
    const json = new TextEncoder().encode(JSON.stringify(tensors));
    const bytes = new Uint8Array(8 + json.length);
    new DataView(bytes.buffer).setBigUint64(0, BigInt(json.length), true);
    bytes.set(json, 8);
    try {
      return parseSafetensorsHeader(bytes);
    } catch (e) {
      throw inFile(this.hub, this.repo, files[0], e);
    }
  }

  // The GGUF `file`'s header: a first megabyte, then half as much again each time, as the
  // header asks, at most 64 MiB.
  async gguf(file, size) {
    let { body: prefix, total } = await this.range(file, 0, Math.min(FIRST_GGUF, size ?? Infinity) - 1);
    size ??= total;
    for (;;) {
      let err;
      try {
        return parseGgufHeader(prefix);
      } catch (e) {
        err = e;
      }
      const need = Number(/the first (\d+) bytes/.exec(err.message)?.[1] ?? NaN);
      const have = prefix.length;
      if (!(need > have) || (size !== null && have >= size)) throw inFile(this.hub, this.repo, file, err);
      if (need > MAX_HEADER) throw failure(this.hub, this.repo, file, { tooLarge: need });
      const want = Math.min(Math.max(need, have + Math.floor(have / 2)), MAX_HEADER, size ?? Infinity);
      const { body: more } = await this.range(file, have, want - 1);
      const grown = new Uint8Array(have + more.length);
      grown.set(prefix);
      grown.set(more, have);
      prefix = grown;
    }
  }
}

function byDtype(list) {
  const merged = new Map();
  for (const t of list) {
    const m = merged.get(t.dtype);
    if (m) {
      m.tensors += t.tensors;
      m.params += t.params;
      m.bytes = m.bytes === null || t.bytes === null ? null : m.bytes + t.bytes;
    } else merged.set(t.dtype, { ...t });
  }
  return [...merged.values()].sort((a, b) => (b.bytes ?? -1) - (a.bytes ?? -1) || (a.dtype < b.dtype ? -1 : a.dtype > b.dtype ? 1 : 0));
}

const SAFETENSORS_DTYPES = {
  BF16: ["bf16", null], F16: ["fp16", null], F32: ["fp32", null],
  F8_E4M3: ["bf16", { format: "fp8" }], F8_E5M2: ["bf16", { format: "fp8" }],
};

/**
 * Looks a public repo up on a hub and returns the model to estimate: see hub.d.ts.
 */
export async function fetchModel(id, options = {}) {
  const hub = hubOf(options);
  const repo = repoId(id);
  const timeout = Math.max(1, Math.min(600_000, options.timeout ?? 30_000));
  const c = new Client(hub, repo, timeout, options.fetch ?? globalThis.fetch.bind(globalThis));
  const list = await c.json(listUrl(hub, repo), "");
  let files;
  let params = null;
  if (hub.kind === "modelscope") {
    const raw = list?.Data?.Files;
    if (!Array.isArray(raw)) throw failure(hub, repo, "", { unreadable: "no `Data.Files` list" });
    files = raw.filter((f) => f.Type !== "tree" && typeof (f.Path ?? f.Name) === "string").map((f) => ({ path: f.Path ?? f.Name, size: Number.isSafeInteger(f.Size) ? f.Size : null }));
  } else {
    if (!Array.isArray(list?.siblings)) throw failure(hub, repo, "", { unreadable: "no `siblings` list" });
    files = list.siblings.filter((s) => typeof s.rfilename === "string").map((s) => ({ path: s.rfilename, size: Number.isSafeInteger(s.size) ? s.size : null }));
    params = Number.isSafeInteger(list.safetensors?.total) ? list.safetensors.total : null;
  }
  const p = plan(hub, repo, files, options.file);
  let config = null;
  if (p.config) {
    const text = await c.text(fileUrl(hub, repo, "config.json"), "config.json");
    try {
      config = parseConfig(text);
    } catch (e) {
      throw inFile(hub, repo, "config.json", e, params);
    }
  }
  let st = null;
  let gguf = null;
  const w = p.weights;
  if (w.kind === "index") {
    const index = await c.json(fileUrl(hub, repo, w.file), w.file);
    const map = index?.weight_map;
    const bad = (why) => failure(hub, repo, w.file, { unreadable: why });
    if (!map || typeof map !== "object") throw bad("no `weight_map` object");
    const shards = [...new Set(Object.values(map))].sort();
    for (const s of shards) {
      if (typeof s !== "string" || !s || s.startsWith("/") || s.includes("..") || !s.endsWith(".safetensors")) throw bad(`\`${s}\` is not a safetensors file of the repo`);
    }
    if (!shards.length || shards.length > 4096) throw bad(`${shards.length} shards`);
    st = { files: shards, header: await c.safetensors(shards) };
  } else if (w.kind === "safetensors") {
    st = { files: w.files, header: await c.safetensors(w.files) };
  } else if (w.kind === "gguf") {
    const headers = [];
    for (const f of w.files) headers.push(await c.gguf(f, files.find((x) => x.path === f)?.size ?? null));
    gguf = { files: w.files, headers };
  }
  const checkpoint = st
    ? { format: "safetensors", files: st.files, tensors: st.header.tensor_count, params: st.header.total_params, bytes: st.header.total_bytes, by_dtype: st.header.by_dtype }
    : gguf
      ? {
        format: "gguf",
        files: gguf.files,
        tensors: gguf.headers.reduce((s, h) => s + h.tensor_count, 0),
        params: gguf.headers.reduce((s, h) => s + h.total_params, 0),
        bytes: gguf.headers.reduce((s, h) => s + h.total_bytes, 0),
        by_dtype: byDtype(gguf.headers.flatMap((h) => h.by_type)),
      }
      : null;
  const count = checkpoint?.params ?? params;
  const noLayout = (isGguf) => hubError(
    "layout",
    `\`${repo}\` (${hub.endpoint}): ${isGguf ? "its GGUF header names no architecture vramfit reads, and it has no config.json" : "it has no config.json, and no weights header gives an architecture vramfit reads"}`,
    `the parameter count alone: --params ${count ?? "N"} (the quick estimate)`,
  );
  let model;
  if (gguf) {
    const h = gguf.headers[0];
    const arch = h.arch && gguf.headers.length === 1 ? h.arch : config?.arch;
    if (!arch) throw noLayout(true);
    model = {
      arch,
      dtype: null,
      model_type: h.architecture ? `gguf (${h.architecture})` : "gguf",
      quantization: h.file_type ? { format: "gguf", file_type: h.file_type } : null,
      notes: [],
    };
  } else if (config) {
    model = config;
  } else if (st) {
    if (!st.header.arch) throw noLayout(false);
    const [dtype, quantization] = SAFETENSORS_DTYPES[st.header.by_dtype[0]?.dtype] ?? [null, null];
    model = { arch: st.header.arch, dtype, model_type: "safetensors", quantization, notes: [] };
  } else {
    throw noLayout(false);
  }
  model = { ...model, notes: [...model.notes] };
  if (checkpoint?.format === "safetensors" && config && !model.quantization) {
    const arch = archParams(model.arch);
    if (arch !== null && arch !== checkpoint.params) {
      model.notes.push(`config.json describes ${arch} parameters; the checkpoint holds ${checkpoint.params}: the estimate follows config.json.`);
    }
  }
  const input = { arch: model.arch };
  if (model.dtype) input.dtype = model.dtype;
  if (model.quantization) input.quantization = model.quantization;
  if (gguf) input.engine = "llamacpp";
  return {
    repo,
    hub,
    revision: hub.kind === "modelscope" ? "master" : "main",
    model,
    checkpoint,
    files_read: c.files,
    bytes_read: c.bytes,
    input,
  };
}

// The parameters of an architecture, as the estimator counts them (`null` should it refuse it).
function archParams(arch) {
  try {
    return estimate({ arch }).params;
  } catch {
    return null;
  }
}
