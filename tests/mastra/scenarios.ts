// The runs of the Mastra tier (tests/test_mastra.py): Mastra's runEvals and scorer.run with the
// scorers of offline-recall-mastra, against `offline-recall serve` at $OFFLINE_RECALL_URL.
// Run under Node 22 in a project holding @mastra/core, offline-recall-mastra and the agent of
// docs/mastra.md (agent.ts):
//
//   node scenarios.ts runs OUT.jsonl    agent-shaped and plain runs, 32 at once, refusals
//   node scenarios.ts token OUT.jsonl   a service asking for $OFFLINE_RECALL_SERVE_TOKEN
//
// Each line written is one run: {case, scorer, sent, result, score, reason} when it was
// scored (`sent`: the preprocess step's result, `result`: the analyze step's), or
// {case, error} with the messages of the error it threw and of its causes.
import { writeFileSync } from "node:fs";
import { runEvals } from "@mastra/core/evals";
import {
  createContextPrecisionScorer,
  createContextRecallScorer,
  createContextRelevanceScorer,
  createFaithfulnessScorer,
} from "offline-recall-mastra";
import { myAgent } from "./agent.ts";

const [mode, out] = process.argv.slice(2);
const lines: object[] = [];

function record(name: string, result: any): void {
  lines.push({
    case: name,
    scorer: result.scorerId ?? result.analyzeStepResult?.scorer,
    sent: result.preprocessStepResult,
    result: result.analyzeStepResult,
    score: result.score,
    reason: result.reason,
  });
}

function messages(error: any): string {
  const found: string[] = [];
  for (let e = error; e != null && found.length < 5; e = e.cause) {
    found.push(String(e.message ?? e));
  }
  return found.join(" <- ");
}

async function refused(name: string, attempt: () => unknown): Promise<void> {
  try {
    await attempt();
    lines.push({ case: name, error: null });
  } catch (error) {
    lines.push({ case: name, error: messages(error) });
  }
}

const STATIC = ["Green tea is a drink made from leaves.", "Chlorophyll makes leaves green."];
const fromTools = (input: any, output: any): string[] =>
  output
    .filter((message: any) => message?.role === "assistant")
    .flatMap((message: any) => message?.content?.toolInvocations ?? [])
    .filter((tool: any) => tool.state === "result")
    .flatMap((tool: any) => tool.result.chunks);
const both = { context: STATIC, contextExtractor: fromTools };
const PLAIN = {
  input: "What is green tea?",
  output: "Green tea is a drink.",
  groundTruth: "Green tea is a drink made from leaves.",
};

async function runs(): Promise<void> {
  const scorers = [
    createContextRecallScorer({ options: both }),
    createContextPrecisionScorer({ options: both }),
    createFaithfulnessScorer({ options: both }),
    createContextRelevanceScorer({ options: both }),
  ];
  const data = [
    {
      input: "What are the health benefits of green tea?",
      groundTruth: "Green tea contains antioxidants that reduce inflammation. It improves focus.",
    },
    {
      input: "How does photosynthesis work?",
      groundTruth: "Photosynthesis converts sunlight into chemical energy.",
    },
    { input: "How does photosynthesis work?" }, // no ground truth
  ];
  // agent-shaped runs: the extractor gives the context
  await runEvals({
    data,
    scorers,
    target: myAgent,
    concurrency: 2,
    onItemComplete: ({ item, scorerResults }) => {
      for (const scorer of scorers) {
        record(`agent ${data.indexOf(item as any)}`, scorerResults[scorer.id]);
      }
    },
  });
  // plain runs: the static context; with the extractor alone, the extractor's
  for (const scorer of scorers) {
    record("plain", await scorer.run(PLAIN));
  }
  const extracted = createContextRecallScorer({
    options: { contextExtractor: (input: string) => [`${input} Green tea is a drink.`] },
  });
  record("extractor alone", await extracted.run(PLAIN));
  // 32 clients at once, each its own run
  const results = await Promise.all(
    Array.from({ length: 32 }, (_, n) =>
      extracted.run({
        input: `Item ${n} is made of cedar.`,
        output: "",
        groundTruth: `Item ${n} is made of cedar. Item ${n} was built in ${1800 + n}.`,
      }),
    ),
  );
  results.forEach((result, n) => record(`concurrent ${n}`, result));
  // refusals: each says why
  const huge = createContextRecallScorer({ options: { context: ["leaf ".repeat(60_000)] } });
  await refused("over the bound", () => huge.run(PLAIN));
  await refused("runEvals over the bound", () =>
    runEvals({ data: data.slice(0, 1), scorers: [huge], target: myAgent }),
  );
  const scaled = createContextRecallScorer({ options: { context: STATIC, scale: 10 } });
  await refused("another scale", () => scaled.run(PLAIN));
  const elsewhere = createContextRecallScorer({
    url: "http://127.0.0.1:9",
    options: { context: STATIC },
  });
  await refused("no service", () => elsewhere.run(PLAIN));
  await refused("a model", () =>
    createContextRecallScorer({ model: "openai/gpt-4o", options: { context: STATIC } } as any),
  );
  await refused("no context", () => createContextRecallScorer({ options: {} }));
  await refused("an empty context", () => createContextRecallScorer({ options: { context: [] } }));
}

async function token(): Promise<void> {
  const scorer = createContextRecallScorer({ options: { context: STATIC } });
  record("the environment's token", await scorer.run(PLAIN));
  const wrong = createContextRecallScorer({ token: "wrong", options: { context: STATIC } });
  await refused("a wrong token", () => wrong.run(PLAIN));
}

await (mode === "token" ? token() : runs());
writeFileSync(out, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
