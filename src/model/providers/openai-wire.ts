/** Shapes of OpenAI-compatible responses that both the streamed and the whole-answer readers use. */

/** One streamed piece of a tool call, as servers send it: every field may be missing. */
export interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

/** Token counts as OpenAI-compatible servers report them. */
export interface OpenAiUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
}
