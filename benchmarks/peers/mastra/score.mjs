// Mastra's context recall or context precision scorer over a JSON Lines file of items, against
// a local OpenAI-compatible server.
//
//   node score.mjs TASK ITEMS.jsonl OUT.jsonl BASE_URL MODEL CONCURRENCY
//
// TASK is `recall` (items {id, ground_truth, context}) or `precision` (items {id, question,
// answer, chunks}). Each output line is {id, score, error}, with a precision row's chunk
// verdicts (1 relevant, 0 not, in chunk order) as `verdicts` when the model gave one per chunk.
// A run that throws (unparseable model output, a schema mismatch) is written with score null
// and its error. The last line printed is {"seconds": ...}: the scoring time, without start-up.
import { readFileSync, writeFileSync } from "node:fs";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import {
  createContextPrecisionScorer,
  createContextRecallScorer,
} from "@mastra/evals/scorers/prebuilt";

const [task, itemsPath, outPath, baseURL, modelName, concurrency] = process.argv.slice(2);
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

// Each scorer takes its context at construction, so one scorer per item (no model call).
function recall(item) {
  const scorer = createContextRecallScorer({ model, options: { context: item.context } });
  return scorer.run({
    input: [],
    output: { role: "assistant", text: "" },
    groundTruth: item.ground_truth,
  });
}

// Mastra judges each chunk against the run's output: the expected answer goes there.
function precision(item) {
  const scorer = createContextPrecisionScorer({ model, options: { context: item.chunks } });
  return scorer.run({ input: item.question, output: item.answer });
}

function chunkVerdicts(item, result) {
  const found = result.analyzeStepResult?.verdicts;
  if (task !== "precision" || !Array.isArray(found) || found.length !== item.chunks.length) {
    return null;
  }
  const sorted = [...found].sort((a, b) => a.context_index - b.context_index);
  return sorted.map((v) => (String(v.verdict).toLowerCase().trim() === "yes" ? 1 : 0));
}

async function scoreOne(item) {
  try {
    const result = await (task === "precision" ? precision(item) : recall(item));
    const score = Number.isFinite(result.score) ? result.score : null;
    const error = score === null ? `score ${result.score}` : null;
    return { id: item.id, score, error, verdicts: chunkVerdicts(item, result) };
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
