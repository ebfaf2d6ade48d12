// Mastra scorers scored offline by `offline-recall serve`, on the local, pinned model the
// service loaded: each scorer's steps send the run to the service, and a result's score and
// reason are the ones `offline-recall score` writes for the same row.
//
//   import { createContextRecallScorer } from "offline-recall-mastra";
//   const scorer = createContextRecallScorer({ options: { context: ["..."] } });
//
// The ids are Mastra's, so `scorerResults[scorer.id]` reads as in Mastra's docs. Types are in
// index.d.ts.
import { createScorer } from "@mastra/core/evals";

/** Where a scorer finds the service unless given `url` or $OFFLINE_RECALL_URL. */
export const DEFAULT_URL = "http://127.0.0.1:8765";
const URL_ENV = "OFFLINE_RECALL_URL";
const TOKEN_ENV = "OFFLINE_RECALL_SERVE_TOKEN";

const SCORERS = {
  "context-recall-scorer": {
    metric: "context recall",
    name: "Context Recall Scorer",
    description: "How much of the ground truth the retrieved context supports (offline-recall)",
  },
  "context-precision-scorer": {
    metric: "context precision",
    name: "Context Precision Scorer",
    description: "Whether the relevant context chunks are ranked first (offline-recall)",
  },
  "faithfulness-scorer": {
    metric: "faithfulness",
    name: "Faithfulness Scorer",
    description: "How much of the output the retrieved context supports (offline-recall)",
  },
  "context-relevance-scorer": {
    metric: "context relevance",
    name: "Context Relevance Scorer",
    description: "How relevant the context is to the question and the response (offline-recall)",
  },
};

const isRecord = (value) => typeof value === "object" && value !== null;

/** Mastra's agent input: message arrays and an object of tagged system messages. */
export function isAgentInput(input) {
  return (
    isRecord(input) &&
    Array.isArray(input.inputMessages) &&
    Array.isArray(input.rememberedMessages) &&
    Array.isArray(input.systemMessages) &&
    isRecord(input.taggedSystemMessages)
  );
}

/** Mastra's agent output: a list of messages, each with id, role, content and createdAt. */
export function isAgentOutput(output) {
  return (
    Array.isArray(output) &&
    output.every(
      (m) =>
        isRecord(m) &&
        typeof m.id === "string" &&
        typeof m.role === "string" &&
        "content" in m &&
        "createdAt" in m,
    )
  );
}

/**
 * A run's context under a scorer's options: the extractor's when it is the only source, or
 * when both are given and the run is agent-shaped (as Mastra checks it); else the static one.
 */
export function contextOf(options, input, output) {
  const { context, contextExtractor } = options;
  const agentShaped = isAgentInput(input) && isAgentOutput(output);
  if (contextExtractor && (context == null || agentShaped)) {
    const found = contextExtractor(input, output);
    if (!Array.isArray(found) || !found.every((c) => typeof c === "string")) {
      throw new Error("contextExtractor must return a list of strings");
    }
    return found;
  }
  return context;
}

function checkOptions(metric, config) {
  if (!isRecord(config) || !isRecord(config.options)) {
    throw new Error(`${metric} needs \`options\`: { context } or { contextExtractor }`);
  }
  if ("model" in config) {
    throw new Error(
      "offline-recall scores on the model `offline-recall serve` loaded: leave `model` out " +
        "(the service's /health says which model it runs)",
    );
  }
  const { context, contextExtractor, scale } = config.options;
  if (context == null && !contextExtractor) {
    throw new Error(`${metric} needs \`context\` (a list of strings) or \`contextExtractor\``);
  }
  if (context != null && (!Array.isArray(context) || context.length === 0)) {
    throw new Error("`context` is an empty list; give at least one chunk");
  }
  if (scale != null && !(Number.isFinite(scale) && scale >= 0)) {
    throw new Error(`\`scale\` must be a finite number from 0 (meaning 1), got ${scale}`);
  }
}

async function scoreOnService(service, id, run) {
  const headers = { "content-type": "application/json" };
  if (service.token) {
    headers.authorization = `Bearer ${service.token}`;
  }
  let response;
  try {
    response = await fetch(`${service.url}/score/${encodeURIComponent(id)}`, {
      method: "POST",
      headers,
      body: JSON.stringify(run),
    });
  } catch (error) {
    const why = error?.cause?.code ?? error?.cause?.errors?.[0]?.code ?? error?.message;
    throw new Error(
      `offline-recall serve does not answer at ${service.url} (${why}): start it with ` +
        `\`offline-recall serve --scorer ${id}\`, or give the scorer its \`url\``,
    );
  }
  const text = await response.text();
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = { error: text.slice(0, 300) };
  }
  if (!response.ok) {
    throw new Error(`offline-recall serve refused the run (${response.status}): ${answer.error}`);
  }
  if (typeof answer.score !== "number") {
    throw new Error(`offline-recall could not score the run: ${answer.error}`);
  }
  return answer;
}

/**
 * A Mastra scorer that scores with the service's scorer `id` (a built-in one below, or a
 * plugin's the service runs). Steps: `preprocess` gives the run as sent (with its context),
 * `analyze` the service's result (the verdicts), then its score and its reason.
 */
export function createOfflineRecallScorer(id, config) {
  const known = SCORERS[id] ?? { metric: id, name: id, description: `${id} (offline-recall)` };
  checkOptions(known.metric, config);
  const { options } = config;
  const service = {
    url: (config.url ?? process.env[URL_ENV] ?? DEFAULT_URL).replace(/\/+$/, ""),
    token: config.token ?? (process.env[TOKEN_ENV] || undefined),
  };
  return createScorer({ id, name: known.name, description: known.description })
    .preprocess(({ run }) => ({
      input: run.input,
      output: run.output,
      groundTruth: run.groundTruth,
      context: contextOf(options, run.input, run.output),
      scale: options.scale || 1,
    }))
    .analyze(({ results }) => scoreOnService(service, id, results.preprocessStepResult))
    .generateScore(({ results }) => results.analyzeStepResult.score)
    .generateReason(({ results }) => results.analyzeStepResult.reason);
}

/** Mastra's `createContextRecallScorer`, scored by offline-recall. */
export const createContextRecallScorer = (config) =>
  createOfflineRecallScorer("context-recall-scorer", config);

/** Mastra's `createContextPrecisionScorer`, scored by offline-recall. */
export const createContextPrecisionScorer = (config) =>
  createOfflineRecallScorer("context-precision-scorer", config);

/** Mastra's `createFaithfulnessScorer`, scored by offline-recall. */
export const createFaithfulnessScorer = (config) =>
  createOfflineRecallScorer("faithfulness-scorer", config);

/** Mastra's `createContextRelevanceScorerLLM`, scored by offline-recall. */
export const createContextRelevanceScorer = (config) =>
  createOfflineRecallScorer("context-relevance-scorer", config);
