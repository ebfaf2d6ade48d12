// Mastra's context recall scorer over a JSON Lines file of items, against a local
// OpenAI-compatible server.
//
//   node score.mjs ITEMS.jsonl OUT.jsonl BASE_URL MODEL CONCURRENCY
//
// Each item is {id, ground_truth, context}; each output line is {id, score, error}. A run that
// throws (unparseable model output, a schema mismatch) is written with score null and its error.
// The last line printed is {"seconds": ...}: the scoring time, without start-up.
import { readFileSync, writeFileSync } from "node:fs";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createContextRecallScorer } from "@mastra/evals/scorers/prebuilt";

const [itemsPath, outPath, baseURL, modelName, concurrency] = process.argv.slice(2);
const items = readFileSync(itemsPath, "utf8")
  .split("\n")
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line));

// The AI SDK's provider for OpenAI-compatible servers; vLLM honours JSON-schema response formats.
const provider = createOpenAICompatible({
  name: "local",
  baseURL,
  apiKey: "unused",
  supportsStructuredOutputs: true,
});
const model = provider.chatModel(modelName);

async function scoreOne(item) {
  // The scorer takes its context at construction, so one scorer per item (no model call).
  const scorer = createContextRecallScorer({ model, options: { context: item.context } });
  try {
    const result = await scorer.run({
      input: [],
      output: { role: "assistant", text: "" },
      groundTruth: item.ground_truth,
    });
    const score = Number.isFinite(result.score) ? result.score : null;
    return { id: item.id, score, error: score === null ? `score ${result.score}` : null };
  } catch (error) {
    return { id: item.id, score: null, error: String(error?.message ?? error).slice(0, 300) };
  }
}

const results = new Array(items.length);
let next = 0;
async function worker() {
  while (next < items.length) {
    const index = next++;
    results[index] = await scoreOne(items[index]);
  }
}

const started = performance.now();
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
const seconds = (performance.now() - started) / 1000;
writeFileSync(outPath, results.map((r) => JSON.stringify(r)).join("\n") + "\n");
console.log(JSON.stringify({ seconds }));
