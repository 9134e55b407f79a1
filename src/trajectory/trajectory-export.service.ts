import { Injectable } from '@nestjs/common';
import { ConversationService, type MessageView, toMessageView } from '../conversation';
import { ProviderRequests, SecretRedactor } from '../model';
import { type SpanNode, TraceReader } from '../observe';
import { type RunEvent, type RunView, RunService } from '../runtime';
import { type AuthContext, SecretService } from '../security';
import { openMcpValue, SECRET_REF, WorkspaceService } from '../workspace';
import { type CurlCall, curlScript } from './trajectory-curl';
import {
  TRAJECTORY_FORMAT, TRAJECTORY_VERSION, type Trajectory, type TrajectoryConversation, type TrajectoryRun, type TrajectorySubrun, type TrajectoryToolCall,
} from './trajectory.types';

/**
 * A conversation's trajectory (trajectory.types.ts): its messages, its runs with their tool
 * calls, events and spans, and the usage, read through the owning modules' services and
 * redacted as a whole before it leaves.
 */
@Injectable()
export class TrajectoryExport {
  constructor(
    private readonly conversations: ConversationService,
    private readonly runs: RunService,
    private readonly traces: TraceReader,
    private readonly redactor: SecretRedactor,
    private readonly workspaces: WorkspaceService,
    private readonly providers: ProviderRequests,
    private readonly secrets: SecretService,
  ) {}

  async trajectory(auth: AuthContext, conversationId: string): Promise<Trajectory> {
    const conversation = await this.conversations.get(auth, conversationId);
    const { messages, runs } = await this.transcript(auth, conversation.id);
    // a parent's usage already holds its sub-runs' (they are charged to it when they end)
    const promptTokens = sum(runs, (run) => run.usage.promptTokens);
    const completionTokens = sum(runs, (run) => run.usage.completionTokens);
    const trajectory: Trajectory = {
      format: TRAJECTORY_FORMAT,
      version: TRAJECTORY_VERSION,
      exportedAt: new Date().toISOString(),
      conversation: headerOf(conversation),
      messages,
      runs,
      usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, cost: sum(runs, (run) => run.usage.cost), runs: runs.length },
    };
    return this.redact(auth, trajectory);
  }

  /** A conversation's messages and runs, each run with its sub-runs' conversations (at most 2 deep). */
  private async transcript(auth: AuthContext, conversationId: string): Promise<Pick<Trajectory, 'messages' | 'runs'>> {
    const messages = (await this.conversations.history(conversationId)).map(toMessageView);
    const runs = await this.runs.ofConversation(auth, conversationId);
    const trees = await this.traces.spanTrees(runs.map((run) => run.id));
    const exported: TrajectoryRun[] = [];
    for (const [i, run] of runs.entries()) {
      const logged = await this.runs.allEvents(run.id);
      const events = logged.map(({ seq, type, data, at }) => ({ seq, type, data, at: at.toISOString() }));
      const subruns: TrajectorySubrun[] = [];
      for (const child of (await this.runs.children(auth, run.id)).items) {
        const conversation = headerOf(await this.conversations.get(auth, child.conversationId));
        subruns.push({ callId: callIdOf(logged, child.id), conversation, ...(await this.transcript(auth, child.conversationId)) });
      }
      exported.push({ ...run, toolCalls: toolCallsOf(run, messages), events, spans: trees[i], subruns } as TrajectoryRun);
    }
    return {
      messages: messages.map(({ id, seq, runId, role, content, parts, toolCallId, createdAt }) => ({ id, seq, runId, role, content, parts, toolCallId, createdAt })),
      runs: exported,
    };
  }

  /**
   * The model requests of the caller's run as a cURL script (trajectory-curl.ts), rebuilt from
   * the requests its trace kept (request-view.ts) by the provider's own body builder.
   */
  async curl(auth: AuthContext, runId: string): Promise<{ runId: string; script: string }> {
    const run = await this.runs.view(auth, runId);
    const spans = flatten(await this.traces.spanTree(run.id))
      .filter((span): span is SpanNode & { kind: 'model' } => span.kind === 'model')
      .sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
    const calls: CurlCall[] = [];
    for (const { attributes: a } of spans) {
      const request = a.request ? await this.providers.of(a.request, auth.workspaceId, a.model) : { kind: 'dropped' as const };
      calls.push({ step: a.step, purpose: a.purpose, model: a.model, request });
    }
    return { runId: run.id, script: await this.redact(auth, curlScript(run.id, calls)) };
  }

  /**
   * `value` without secrets: the provider keys and Helix tokens the redactor knows, the literal
   * values of the workspace's MCP server environments and headers, and whatever looks like a
   * secret by its key or shape (src/common/redact-secrets.ts).
   */
  async redact<T>(auth: AuthContext, value: T): Promise<T> {
    const settings = await this.workspaces.settings(auth.workspaceId);
    const mcpValues = (settings.mcpServers ?? []).flatMap((server) => [...Object.values(server.env ?? {}), ...Object.values(server.headers ?? {})]);
    const known = mcpValues.filter((v) => !SECRET_REF.test(v)).flatMap((v) => this.plain(v));
    return this.redactor.redactWith(value, known);
  }

  /** A stored MCP value as the server receives it (stored encrypted); none when it no longer decrypts. */
  private plain(value: string): string[] {
    try {
      return [openMcpValue(value, (ciphertext) => this.secrets.decrypt(ciphertext))];
    } catch {
      return [];
    }
  }
}

const headerOf = ({ id, title, model, agentId, createdAt, updatedAt }: TrajectoryConversation): TrajectoryConversation => ({ id, title, model, agentId, createdAt, updatedAt });

/** The parent's call a child answered, as the parent's `subrun` events name it. */
function callIdOf(events: RunEvent[], childId: string): string | null {
  for (const event of events) if (event.type === 'subrun' && event.data.runId === childId) return event.data.callId;
  return null;
}

const flatten = (nodes: SpanNode[]): SpanNode[] => nodes.flatMap((node) => [node, ...flatten(node.children)]);
const sum = <T>(items: T[], of: (item: T) => number) => items.reduce((total, item) => total + of(item), 0);

/** The run's tool calls in the order the model made them, each with its stored result (null: none yet). */
function toolCallsOf(run: RunView, messages: MessageView[]): TrajectoryToolCall[] {
  const ofRun = messages.filter((m) => m.runId === run.id);
  const results = new Map(ofRun.filter((m) => m.parts.kind === 'tool_result' && m.toolCallId).map((m) => [m.toolCallId!, m]));
  return ofRun.flatMap((m) => {
    if (m.parts.kind !== 'answer' || !m.parts.toolCalls) return [];
    const step = m.parts.step;
    return m.parts.toolCalls.map((call) => {
      const result = results.get(call.id);
      return {
        callId: call.id,
        name: call.name,
        step,
        arguments: call.arguments,
        result: result && result.parts.kind === 'tool_result' ? { ok: result.parts.ok, output: result.content } : null,
      };
    });
  });
}
