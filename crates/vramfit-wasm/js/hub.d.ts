// `fetchModel`: a model to estimate from a hub's repo, a GGUF file's address or an Ollama tag
// (see hub.js and the README).
import type { ErrorKind, FoundModel } from "./vramfit_full.js";

/** Where and how to look a model up. */
export interface FetchModelOptions {
  /**
   * The hub's address: `https://huggingface.co` (the default), a mirror of it
   * (`https://hf-mirror.com`, what `HF_ENDPOINT` names for huggingface_hub), ModelScope
   * (`https://www.modelscope.cn`, the default of `hub: "modelscope"`) or an Ollama registry
   * (`https://registry.ollama.ai`, the default of `hub: "ollama"`). Without `hub`, the kind is
   * read from the address's host.
   */
  endpoint?: string;
  /**
   * The kind of hub: `"ollama"` reads `text` as a tag such as `llama3.1:8b`; `"url"` as a GGUF
   * file's address. Without it, `text` is a repo id, or an address read by its host (a hub's
   * repo page or file link, any `.gguf` file).
   */
  hub?: "huggingface" | "modelscope" | "ollama" | "url";
  /** In a repo of several GGUF files, the one to read: its name or a part of it (`Q8_0`); default Q4_K_M. */
  file?: string;
  /** Milliseconds to wait for each answer (default 30,000; at most 600,000). */
  timeout?: number;
  /** The `fetch` to use (default `globalThis.fetch`). */
  fetch?: typeof fetch;
}

/**
 * What `fetchModel` throws: `message` is `hub: …; accepted: …` naming the repo and what to do
 * (`message_zh` in Chinese), `kind` the package's error kind (`hub` for a failed request).
 */
export interface HubError extends Error {
  field: string;
  kind: ErrorKind;
  problem: string;
  accepted: string;
  message_zh?: string;
  /** The HTTP status of the answer that failed, where the server answered one. */
  status?: number;
  /** No answer came: within the timeout, or at all (the network, a refused cross-origin answer). */
  failure?: "timeout" | "network";
}

/**
 * Looks a model up, when called (nothing is fetched before): a hub repo's file list, its
 * `config.json` and its weights' headers by HTTP Range; a GGUF file's header by Range; an Ollama
 * tag's manifest and its model blob's header. Never the weights.
 */
export function fetchModel(text: string, options?: FetchModelOptions): Promise<FoundModel>;
