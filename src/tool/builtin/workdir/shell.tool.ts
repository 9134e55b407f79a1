import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config';
import { isHostAllowed } from '../../../common';
import { WorkdirService } from '../../../workdir';
import type { WorkspaceSettings } from '../../../workspace';
import { HelixTool, type ToolContext, type ToolDefinition, type ToolResult } from '../../tool.types';
import { changesOf, clip, describeChanges, SHELL_ROOT } from './shell-output';
import { runShell, SHELL_GRACE_MS, type ShellOutcome } from './shell-sandbox';

/** What the model sees of each stream; the rest is cut with a marker. */
export const SHELL_MAX_STREAM_CHARS = 16_000;
export const SHELL_MAX_COMMAND_CHARS = 20_000;

/**
 * `shell`: bash commands over the conversation's working directory, interpreted by just-bash on
 * a worker thread (docs/TOOLS.md says what that isolates and what not). The files are loaded
 * into the interpreter's in-memory file system at /workspace and what the command created,
 * changed or deleted there is stored back in one transaction, within the quota; a command that
 * fails a limit changes nothing. High risk: under the default confirmation policy every call
 * waits for approval.
 */
@Injectable()
@HelixTool()
export class ShellTool implements ToolDefinition {
  readonly name = 'shell';
  readonly description =
    `Run bash in a sandbox whose current folder (${SHELL_ROOT}) holds the working directory's files. Common commands ` +
    '(ls, cat, grep, sed, awk, find, sort, jq, …) are built in; no package installs, processes or network (unless allowed for curl). ' +
    'Changes under the current folder are saved; /tmp is scratch. Time and output are limited.';
  readonly parameters = {
    type: 'object',
    properties: { command: { type: 'string', minLength: 1, maxLength: SHELL_MAX_COMMAND_CHARS } },
    required: ['command'],
    additionalProperties: false,
  };
  readonly risk = 'high';
  readonly timeLimitMs: number;
  /** past the sandbox's own deadline, so the sandbox reports which limit was hit first */
  readonly timeoutMs: number;
  readonly maxOutputChars = 2 * SHELL_MAX_STREAM_CHARS + 2_000;
  private readonly memoryLimitMb: number;

  constructor(
    private readonly workdir: WorkdirService,
    @Inject(AppConfig) config: Pick<AppConfig, 'HELIX_SHELL_TIMEOUT_MS'>,
  ) {
    this.timeLimitMs = config.HELIX_SHELL_TIMEOUT_MS;
    this.timeoutMs = this.timeLimitMs + SHELL_GRACE_MS + 2_000;
    // the files are held a few times over (loaded, in the sandbox, read back) besides the interpreter
    this.memoryLimitMb = 128 + Math.ceil((4 * workdir.quotaBytes) / (1024 * 1024));
  }

  async run(args: Record<string, unknown>, context: Pick<ToolContext, 'conversationId' | 'settings' | 'signal'>): Promise<ToolResult> {
    const before = await this.workdir.snapshot(context.conversationId);
    const outcome = await runShell(
      {
        command: String(args.command),
        files: before.map((file) => ({ path: file.path, content: file.content })),
        timeLimitMs: this.timeLimitMs,
        memoryLimitMb: this.memoryLimitMb,
        allowedUrls: context.settings.shellAllowedUrls ?? [],
        privateAddresses: reachesPrivate(context.settings),
      },
      context.signal,
    );
    if (!outcome.ok) return { ok: false, error: this.failure(outcome) };
    const changes = changesOf(before, outcome.files);
    const streams = `Exit code: ${outcome.exitCode}\nstdout:\n${clip(outcome.stdout, SHELL_MAX_STREAM_CHARS)}${
      outcome.stderr ? `\nstderr:\n${clip(outcome.stderr, SHELL_MAX_STREAM_CHARS)}` : ''
    }`;
    if (changes.writes.length || changes.deletes.length) {
      const saved = await this.workdir.apply(context.conversationId, changes);
      if (!saved.ok) return { ok: false, error: `The command ran, but its file changes were not saved: ${saved.error}\n${streams}` };
    }
    return { ok: true, output: `${streams}\n${describeChanges(before, changes)}` };
  }

  private failure(outcome: Exclude<ShellOutcome, { ok: true }>): string {
    if ('cancelled' in outcome) return 'shell was cancelled.';
    if ('limit' in outcome && outcome.limit === 'time') return `shell stopped: time limit of ${this.timeLimitMs} ms exceeded. No file was changed.`;
    if ('limit' in outcome && outcome.limit === 'execution') return `shell stopped: ${outcome.detail}. No file was changed.`;
    if ('limit' in outcome) return `shell stopped: memory limit of ${this.memoryLimitMb} MB exceeded. No file was changed.`;
    return `shell failed: ${outcome.error}. No file was changed.`;
  }
}

/**
 * Whether `curl` may reach private and loopback addresses: only when a host of `shellAllowedUrls`
 * is also one the workspace let http_fetch reach without the check (`httpFetchAllowedHosts`).
 * The interpreter's check is one switch for all its URLs, so that lifts it for all of them.
 */
export function reachesPrivate(settings: Pick<WorkspaceSettings, 'shellAllowedUrls' | 'httpFetchAllowedHosts'>): boolean {
  return (settings.shellAllowedUrls ?? []).some((prefix) => isHostAllowed(settings.httpFetchAllowedHosts, new URL(prefix)));
}
