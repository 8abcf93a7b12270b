// Wrong uses of the package: every line marked `expect-error` must be an error under
// `tsc --strict`, and no other line may be.
import { estimate, solve } from "vramfit";
import { fetchModel, parseGgufHeader, planMig, recommend } from "vramfit/full";

estimate({ batch: "4" }); // expect-error: a string for a number
estimate({ seqLen: 4096 }); // expect-error: camelCase key
estimate({ mode: "flying" }); // expect-error: not a mode
estimate({ quantization: { format: "gptq", bits: 4 } }); // expect-error: group_size missing
estimate("meta-llama/Llama-3.1-8B"); // expect-error: not an input object
planMig("a100-sxm4-80gb", ["36GiB"]); // expect-error: a job is an object
parseGgufHeader("GGUF"); // expect-error: bytes, not text
recommend({}, { limit: "5" }); // expect-error: a string for a number
fetchModel("Qwen/Qwen3-0.6B-FP8", { hub: "github" }); // expect-error: not a kind of hub
fetchModel("Qwen/Qwen3-0.6B-FP8", { endpoint: new URL("https://huggingface.co") }); // expect-error: an address is text
const total: string = estimate({}).total_bytes; // expect-error: bytes are numbers
const b: number = solve({}).max_batch; // expect-error: may be null
console.log(total, b);
