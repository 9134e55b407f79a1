import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config';
import { HelixTool, type ToolContext, type ToolDefinition, type ToolResult } from '../../tool.types';
import { CODE_EXEC_GRACE_MS, CODE_EXEC_MAX_CODE_CHARS, DEFAULT_SANDBOX_LIMITS, runInSandbox, type SandboxLimits, type SandboxOutcome } from './sandbox';

/**
 * `code_exec`: JavaScript in a QuickJS WebAssembly sandbox on a worker thread. The sandbox has
 * only the language (no require, process, fs, network, timers); console output is captured; the
 * last expression's value (or a top-level `return`, or what a promise settles to) is the
 * result. Time and memory limits end the call as a tool error naming the limit. High risk: under
 * the default confirmation policy every call waits for approval.
 */
@Injectable()
@HelixTool()
export class CodeExecTool implements ToolDefinition {
  readonly name = 'code_exec';
  readonly description =
    'Run JavaScript (ES2023, QuickJS) in an isolated sandbox and get what it printed with console.log ' +
    'and the value of its last expression (or what a top-level `return` gives; top-level `await` works). ' +
    'No modules, files, network or timers. ' +
    'Limits: time and memory; output is truncated when long.';
  readonly parameters = {
    type: 'object',
    properties: {
      code: { type: 'string', minLength: 1, maxLength: CODE_EXEC_MAX_CODE_CHARS, description: 'the JavaScript source to run' },
    },
    required: ['code'],
    additionalProperties: false,
  };
  readonly risk = 'high';
  readonly limits: SandboxLimits;
  /** longer than the sandbox's own deadline, so the sandbox reports which limit was hit first */
  readonly timeoutMs: number;
  readonly maxOutputChars: number;

  constructor(@Inject(AppConfig) config: Pick<AppConfig, 'HELIX_CODE_EXEC_TIMEOUT_MS'>) {
    this.limits = { ...DEFAULT_SANDBOX_LIMITS, timeLimitMs: config.HELIX_CODE_EXEC_TIMEOUT_MS };
    this.timeoutMs = this.limits.timeLimitMs + CODE_EXEC_GRACE_MS + 2_000;
    // room for the whole captured stdout plus the result and labels
    this.maxOutputChars = this.limits.maxStdoutChars + this.limits.maxResultChars + 100;
  }

  async run(args: Record<string, unknown>, context: Pick<ToolContext, 'signal'>): Promise<ToolResult> {
    const outcome = await runInSandbox(String(args.code), this.limits, context.signal);
    return this.describe(outcome);
  }

  private describe(outcome: SandboxOutcome): ToolResult {
    if ('cancelled' in outcome) return { ok: false, error: 'code_exec was cancelled.' };
    if (outcome.ok) {
      return { ok: true, output: outcome.stdout ? `Output:\n${outcome.stdout}\nResult: ${outcome.result}` : outcome.result };
    }
    const printed = outcome.stdout ? `\nOutput before it stopped:\n${outcome.stdout}` : '';
    if (outcome.limit === 'time') return { ok: false, error: `code_exec stopped: time limit of ${this.limits.timeLimitMs} ms exceeded.${printed}` };
    if (outcome.limit === 'memory') return { ok: false, error: `code_exec stopped: memory limit of ${this.limits.memoryLimitMb} MB exceeded.${printed}` };
    return { ok: false, error: `JavaScript error: ${outcome.error}${printed}` };
  }
}
