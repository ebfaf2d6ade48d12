// Types of offline-recall-mastra: Mastra scorers scored offline by `offline-recall serve`.
import type { MastraScorer } from "@mastra/core/evals";

/** Where the context comes from, and the scale: the options of Mastra's RAG scorers. */
export interface OfflineRecallScorerOptions {
  /** The retrieved chunks, the same for every run. */
  context?: string[];
  /** Pulls the chunks out of a run (e.g. an agent's tool results). With `context` too, it is
   * used for agent-shaped runs only. */
  contextExtractor?: (input: any, output: any) => string[];
  /** Multiplies the score; 0 or none means 1. The service must run with the same scale. */
  scale?: number;
}

export interface OfflineRecallScorerConfig {
  /** The service's root, e.g. http://127.0.0.1:8765 [default: $OFFLINE_RECALL_URL, else that]. */
  url?: string;
  /** The bearer token the service asks for [default: $OFFLINE_RECALL_SERVE_TOKEN]. */
  token?: string;
  options: OfflineRecallScorerOptions;
}

/** What a scorer sends to the service: the `preprocess` step's result. */
export interface OfflineRecallRun {
  input?: unknown;
  output?: unknown;
  groundTruth?: unknown;
  context?: string[];
  scale: number;
}

/** The service's answer, as `offline-recall score` writes a result: the `analyze` step's
 * result. Each scorer adds its verdicts (`verdicts`, and its own details). */
export interface OfflineRecallResult {
  scorer: string;
  score: number;
  reason: string;
  status: "ok" | "no_ground_truth" | "no_claims" | "no_context";
  error: string | null;
  model_fingerprint: string;
  prompt_version: string;
  judge_profile: string | null;
  library_version: string;
  verdicts?: Array<Record<string, unknown>>;
  [detail: string]: unknown;
}

export interface OfflineRecallStepResults {
  preprocessStepResult: OfflineRecallRun;
  analyzeStepResult: OfflineRecallResult;
  generateScoreStepResult: number;
  generateReasonStepResult: string;
}

export type OfflineRecallScorer<TID extends string> = MastraScorer<
  TID,
  any,
  any,
  OfflineRecallStepResults
>;

/** Where a scorer finds the service unless told otherwise. */
export declare const DEFAULT_URL: string;

/** A scorer of the service's scorer `id` (a built-in one, or a plugin's it runs). */
export declare function createOfflineRecallScorer<TID extends string>(
  id: TID,
  config: OfflineRecallScorerConfig,
): OfflineRecallScorer<TID>;

export declare function createContextRecallScorer(
  config: OfflineRecallScorerConfig,
): OfflineRecallScorer<"context-recall-scorer">;

export declare function createContextPrecisionScorer(
  config: OfflineRecallScorerConfig,
): OfflineRecallScorer<"context-precision-scorer">;

export declare function createFaithfulnessScorer(
  config: OfflineRecallScorerConfig,
): OfflineRecallScorer<"faithfulness-scorer">;

export declare function createContextRelevanceScorer(
  config: OfflineRecallScorerConfig,
): OfflineRecallScorer<"context-relevance-scorer">;

/** Mastra's agent input: message arrays and an object of tagged system messages. */
export declare function isAgentInput(input: unknown): boolean;

/** Mastra's agent output: messages, each with id, role, content and createdAt. */
export declare function isAgentOutput(output: unknown): boolean;

/** A run's context under `options`, as the scorers choose it. */
export declare function contextOf(
  options: OfflineRecallScorerOptions,
  input: unknown,
  output: unknown,
): string[] | undefined;
