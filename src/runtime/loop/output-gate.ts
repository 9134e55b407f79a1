import { Injectable } from '@nestjs/common';
import type { MessageRecord } from '../../conversation';
import type { RunRecord } from '../store/run.records';
import { OutputChecker, repairRequest } from './output-check';

/** What becomes of a run's final answer under its response format. */
export type OutputVerdict =
  /** stored as the final answer; `output` is its parsed value when the run has a format */
  | { kind: 'accepted'; output?: { value: unknown } }
  /** stored, then the model is asked once to correct it (`request` is that message) */
  | { kind: 'repair'; errors: string[]; request: string }
  /** the run fails with `invalid_output`: never a silently wrong answer */
  | { kind: 'rejected'; errors: string[] };

export const ACCEPTED: OutputVerdict = { kind: 'accepted' };

/**
 * Judges the final answer (a step without tool calls) of a run that has a response format:
 * parsed and validated; a wrong one gets one repair round — a model call of the run like any
 * other, so it needs a step left — and a second wrong one ends the run. The round is counted
 * from the run's stored messages, so a restart neither repeats nor forgets it.
 */
@Injectable()
export class OutputGate {
  private readonly checker = new OutputChecker();

  judge(run: Pick<RunRecord, 'id' | 'responseFormat' | 'maxSteps'>, step: number, history: MessageRecord[], text: string): OutputVerdict {
    const format = run.responseFormat;
    if (!format) return ACCEPTED;
    const checked = this.checker.check(format, text);
    if (checked.ok) return { kind: 'accepted', output: { value: checked.output } };
    const repaired = history.some((m) => m.runId === run.id && m.parts.kind === 'output_repair');
    if (repaired || step >= run.maxSteps) return { kind: 'rejected', errors: checked.errors };
    return { kind: 'repair', errors: checked.errors, request: repairRequest(format, checked.errors) };
  }
}
