import type { Trajectory, TrajectoryMessage, TrajectoryRun } from './trajectory.types';

/** A fence longer than any run of backticks in `text`, so the text cannot close it. */
function fenced(text: string, lang = ''): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

function prettyArgs(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

const HEADINGS: Record<string, string> = { user: 'User', assistant: 'Assistant', tool: 'Tool', system: 'System' };

/**
 * The trajectory as a transcript people read: each message in order (tool calls with their
 * arguments, tool results), then each run's state, model and usage, then the sub-runs' own
 * transcripts a heading level deeper. Already redacted.
 */
export function trajectoryMarkdown(t: Trajectory): string {
  const lines: string[] = [`# ${t.conversation.title}`, ''];
  lines.push(`Conversation \`${t.conversation.id}\` · exported ${t.exportedAt} · ${t.usage.runs} run(s), ${t.usage.totalTokens} tokens, cost ${t.usage.cost}`, '');
  transcript(lines, t.messages, t.runs, 2);
  return lines.join('\n');
}

function transcript(lines: string[], messages: TrajectoryMessage[], runs: TrajectoryRun[], level: number): void {
  const heading = '#'.repeat(level);
  for (const m of messages) {
    const kind = m.parts.kind;
    const note = kind === 'partial' ? ' (interrupted)' : kind === 'failure' ? ' (failed)' : kind === 'tool_result' ? `: ${m.parts.name}${m.parts.ok ? '' : ' (error)'}` : '';
    lines.push(`${heading} ${m.seq}. ${HEADINGS[m.role] ?? m.role}${note}`, '');
    if (m.parts.kind === 'answer' && m.parts.reasoning) lines.push('> ' + m.parts.reasoning.split('\n').join('\n> '), '');
    if (m.role === 'tool') lines.push(fenced(m.content), '');
    else if (m.content) lines.push(m.content, '');
    if (m.parts.kind === 'answer') {
      for (const call of m.parts.toolCalls ?? []) lines.push(`Tool call \`${call.name}\` (\`${call.id}\`):`, '', fenced(prettyArgs(call.arguments), 'json'), '');
    }
  }
  if (!runs.length) return;
  lines.push(`${heading} Runs`, '', '| run | state | mode | model | steps | prompt tokens | completion tokens | cost |', '|---|---|---|---|---|---|---|---|');
  for (const r of runs) {
    const cells = [`\`${r.id}\``, r.state, r.mode, `${r.model.provider}:${r.model.modelId}`, String(r.step), String(r.usage.promptTokens), String(r.usage.completionTokens), String(r.usage.cost)];
    lines.push(`| ${cells.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`);
  }
  lines.push('');
  for (const sub of runs.flatMap((r) => r.subruns)) {
    const call = sub.callId ? ` for \`${sub.callId}\`` : '';
    lines.push(`${heading} Sub-run${call}: ${sub.conversation.title}`, '');
    transcript(lines, sub.messages, sub.runs, level + 1);
  }
}
