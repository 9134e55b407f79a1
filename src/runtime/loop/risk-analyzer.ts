import { Injectable, Logger } from '@nestjs/common';
import type { StoredToolCall } from '../../conversation';
import { EventLog } from '../events/event-log';
import { ModelStep } from './model-step';
import type { RunContext } from './run-context';
import { NO_USAGE, type RunRecord, type RunUsage } from '../store/run.records';

export const RISK_LEVELS = ['low', 'medium', 'high'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** The analyzer's judgement of one call. */
export interface RiskAssessment {
  risk: RiskLevel;
  /** one line, for the person asked to approve */
  reason: string;
}

/** The fixed rubric (seed 004's confirmation mode with a security analyzer). */
export const RISK_RUBRIC =
  'You review one tool call an AI agent is about to make, before it runs. Rate its risk from the tool name and arguments only:\n' +
  '- high: it deletes, overwrites or publishes data; sends messages, money or requests with side effects; changes accounts, ' +
  'permissions or configuration; runs code or commands that change things; reaches internal or private systems; or may leak secrets;\n' +
  '- medium: it changes something that can be undone, or reads private or sensitive data;\n' +
  '- low: it only reads public information or computes.\n' +
  'Answer with JSON only: {"risk": "low" | "medium" | "high", "reason": "<one short line>"}.';

const MAX_ARGUMENT_CHARS = 4000;
const MAX_REASON_CHARS = 300;
/** The rating is short: a few dozen tokens. */
const RATING_MAX_TOKENS = 120;

/** The model's rating, if its answer holds one: JSON, possibly wrapped in prose or a code fence. */
export function parseAssessment(text: string): RiskAssessment | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    const value: unknown = JSON.parse(text.slice(start, end + 1));
    if (typeof value !== 'object' || value === null) return undefined;
    const risk = RISK_LEVELS.find((level) => 'risk' in value && level === value.risk);
    const reason = 'reason' in value && typeof value.reason === 'string' ? value.reason.trim().split('\n')[0].slice(0, MAX_REASON_CHARS) : '';
    return risk && { risk, reason };
  } catch {
    return undefined;
  }
}

/**
 * The optional risk analyzer (an agent's `riskAnalysis`): one model call per tool call, with the
 * fixed rubric, as one of the run's calls (budget held, span of purpose `risk`, `usage` event,
 * charged to the run). No rating (refused by the budget, failed, unreadable) leaves the call to
 * its tool's own risk.
 */
@Injectable()
export class RiskAnalyzer {
  private readonly logger = new Logger(RiskAnalyzer.name);

  constructor(
    private readonly steps: ModelStep,
    private readonly events: EventLog,
  ) {}

  async rate(run: RunRecord, context: RunContext, call: StoredToolCall, signal: AbortSignal): Promise<{ assessment?: RiskAssessment; charged: RunUsage }> {
    const input = await this.steps.inputFor(run, context, [], 'risk');
    const args = call.arguments.length > MAX_ARGUMENT_CHARS ? `${call.arguments.slice(0, MAX_ARGUMENT_CHARS)}…` : call.arguments;
    const request = {
      model: run.model,
      fallbacks: context.fallbacks,
      workspaceId: context.workspaceId,
      messages: [
        { role: 'system' as const, content: RISK_RUBRIC },
        { role: 'user' as const, content: `Tool: ${call.name}\nArguments: ${args}` },
      ],
      temperature: 0,
      maxTokens: RATING_MAX_TOKENS,
    };
    const prepared = await this.steps.prepareCall(input, request, Math.ceil((RISK_RUBRIC.length + args.length) / 3));
    if (prepared.kind === 'denied') return { charged: NO_USAGE };
    for (const event of prepared.events) this.events.emit(run.id, event.type, event.data);
    try {
      const { result, charged } = await this.steps.complete(prepared, signal);
      const assessment = parseAssessment(result.text);
      if (!assessment) this.logger.warn(`The risk analyzer gave no rating for ${call.name} in run ${run.id}`);
      return { ...(assessment && { assessment }), charged };
    } catch (error) {
      if (signal.aborted) throw error;
      this.logger.warn(`The risk analyzer failed for ${call.name} in run ${run.id}: ${error instanceof Error ? error.message : String(error)}`);
      return { charged: NO_USAGE };
    }
  }
}
