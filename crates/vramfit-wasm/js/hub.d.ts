// `fetchModel`: a public repo of a hub as a model for `estimate` (see hub.js and the README).
import type { Architecture, Dtype, ParsedConfig, Quantization, TypeCount } from "./vramfit_full.js";

/** Where and how to look a model up. */
export interface FetchModelOptions {
  /**
   * The hub's address: `https://huggingface.co` (the default), a mirror of it
   * (`https://hf-mirror.com`, what `HF_ENDPOINT` names for huggingface_hub) or ModelScope
   * (`https://www.modelscope.cn`, the default of `hub: "modelscope"`).
   */
  endpoint?: string;
  /** The shape of the hub's API; by default ModelScope's when the endpoint's host says so. */
  hub?: "huggingface" | "modelscope";
  /** In a repo of several GGUF files, the one to read: its name or a part of it (`Q8_0`); default Q4_K_M. */
  file?: string;
  /** Milliseconds to wait for each answer (default 30,000). */
  timeout?: number;
  /** The `fetch` to use (default `globalThis.fetch`). */
  fetch?: typeof fetch;
}

/** A hub at an address. */
export interface Hub {
  kind: "huggingface" | "modelscope";
  /** Without a trailing slash. */
  endpoint: string;
}

/** A checkpoint's tensors, exactly, from its headers. */
export interface Checkpoint {
  format: "safetensors" | "gguf";
  /** The files whose headers were read. */
  files: string[];
  tensors: number;
  /** Elements in all tensors (packed quantized layouts count their stored elements). */
  params: number;
  /** Bytes of tensor data: what the weights occupy on disk, and in memory as loaded. */
  bytes: number;
  /** Per element type, largest first. */
  by_dtype: TypeCount[];
}

/** A model looked up on a hub: the `hub` object of `vramfit estimate --hub --json`, and `input`. */
export interface HubModel {
  /** `OWNER/NAME`. */
  repo: string;
  hub: Hub;
  /** The branch read: `main` (Hugging Face) or `master` (ModelScope). */
  revision: string;
  /** The model to estimate: config.json's, else the weights header's (architecture, dtype, format). */
  model: ParsedConfig;
  /** `null` where the repo lists no safetensors or GGUF weights. */
  checkpoint: Checkpoint | null;
  /** The files read, in order (the file list not counted). */
  files_read: string[];
  /** Bytes downloaded in all. */
  bytes_read: number;
  /** The model as `estimate`'s input: `estimate({ ...m.input, mode: "serve", gpu: "h100" })`. */
  input: { arch: Architecture; dtype?: Dtype; quantization?: Quantization; engine?: "llamacpp" };
}

/** What `fetchModel` throws: `message` is `hub: …; accepted: …`, naming the repo. */
export interface HubError extends Error {
  field: "hub";
  kind:
    | "id" | "endpoint" | "gated" | "missing" | "rate-limited" | "status" | "timeout"
    | "network" | "too-large" | "unreadable" | "file" | "gguf" | "layout";
  /** The HTTP status, where the hub answered one. */
  status?: number;
}

/**
 * Looks a public repo up on a hub, when called (nothing is fetched before): its file list, its
 * `config.json` and its weights' headers by HTTP Range, never the weights.
 */
export function fetchModel(id: string, options?: FetchModelOptions): Promise<HubModel>;

/** The repo id `OWNER/NAME` in `text` (also a repo's address on a hub); throws a `HubError`. */
export function repoId(text: string): string;
