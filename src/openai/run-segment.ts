import { Injectable } from '@nestjs/common';
import { type Observable, takeWhile } from 'rxjs';
import { sleep } from '../common';
import type { AuthContext } from '../security';
import { EventLog, RunService, type RunEvent, type RunEventPayloads, type RunView } from '../runtime';

/**
 * Where an OpenAI answer (a completion, a response) built from a run's events ends: the run
 * finished (`done`), or it waits for a person or a client — a tool call to approve, an
 * `ask_user` question or a plan (a `waiting` status), or client-side tool calls (`tool.client`
 * events, then a `waiting` status). The next request continues the same run after that event.
 */
export const endsSegment = (event: RunEvent): boolean =>
  event.type === 'done' || event.type === 'approval' || (event.type === 'status' && event.data.phase === 'waiting');

/** What a segment of a run's events ended on, as every OpenAI mapping needs to know it. */
export type SegmentEnd =
  | { kind: 'done'; state: string; output?: unknown; error?: RunEventPayloads['error'] }
  | { kind: 'approval'; approval: RunEventPayloads['approval'] }
  | { kind: 'client_tools'; calls: RunEventPayloads['tool.client'][] }
  /** an ask_user question, or a plan to approve (`plan` set) */
  | { kind: 'question'; text: string; plan?: RunEventPayloads['plan'] };

/** Usage added up over a segment's `usage` events. */
export interface SegmentUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export type SegmentSources = RunEventPayloads['sources']['items'];

/**
 * The state every mapping keeps while it reads a segment: text by step (a step that restarts
 * voids its text), client tool calls, usage, sources, the run's failure, and how it ended.
 * `accept` returns the text delta the event adds to the answer, if any (a step's first text
 * after earlier text is set apart by a blank line).
 */
export class SegmentState {
  readonly usage: SegmentUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  readonly clientCalls: RunEventPayloads['tool.client'][] = [];
  sources?: SegmentSources;
  /** the models' reasoning, where they stream it apart from the answer */
  reasoning = '';
  plan?: RunEventPayloads['plan'];
  error?: RunEventPayloads['error'];
  end?: SegmentEnd;
  lastSeq: number;
  /** the step whose text arrives now, and the text of each step */
  private step = 0;
  private readonly texts = new Map<number, string>();
  private wrote = false;
  private stepWrote = false;

  constructor(afterSeq: number) {
    this.lastSeq = afterSeq;
  }

  /** The answer's text: every step's that was not voided by a restart, blank lines between them. */
  get text(): string {
    return [...this.texts.values()].filter(Boolean).join('\n\n');
  }

  accept(event: RunEvent): string | undefined {
    this.lastSeq = event.seq;
    switch (event.type) {
      case 'status':
        if (event.data.step !== undefined && event.data.step !== this.step) {
          this.step = event.data.step;
          this.stepWrote = false;
        }
        if (event.data.restart) {
          this.texts.delete(this.step);
          this.stepWrote = false;
        }
        if (event.data.phase === 'waiting') this.end = this.clientCalls.length ? { kind: 'client_tools', calls: this.clientCalls } : { kind: 'question', text: event.data.text, ...(this.plan && { plan: this.plan }) };
        return undefined;
      case 'token': {
        const delta = this.wrote && !this.stepWrote ? `\n\n${event.data.text}` : event.data.text;
        this.wrote = this.stepWrote = true;
        this.texts.set(this.step, (this.texts.get(this.step) ?? '') + event.data.text);
        return delta;
      }
      case 'tool.client':
        this.clientCalls.push(event.data);
        return undefined;
      case 'reasoning':
        this.reasoning += event.data.text;
        return undefined;
      case 'approval':
        this.end = { kind: 'approval', approval: event.data };
        return undefined;
      case 'plan':
        this.plan = event.data;
        return undefined;
      case 'usage':
        this.usage.promptTokens += event.data.promptTokens;
        this.usage.completionTokens += event.data.completionTokens;
        this.usage.totalTokens += event.data.totalTokens;
        return undefined;
      case 'sources':
        this.sources = event.data.items;
        return undefined;
      case 'error':
        // a stand-in for an event the database refused is not the run's failure
        if (event.data.code !== 'event_not_stored') this.error = event.data;
        return undefined;
      case 'done':
        this.end = { kind: 'done', state: event.data.state, ...(event.data.output !== undefined && { output: event.data.output }), ...(this.error && { error: this.error }) };
        return undefined;
      default:
        return undefined;
    }
  }
}

/** How long a segment that ended waiting waits for its run to be in the waiting state. */
const SETTLE_MS = 5_000;
const SETTLE_POLL_MS = 10;

/** Reads segments of runs for the OpenAI mappings. */
@Injectable()
export class RunSegments {
  constructor(
    private readonly events: EventLog,
    private readonly runs: RunService,
  ) {}

  /** The run's events after `afterSeq`, up to and including the one that ends the segment. */
  read(runId: string, afterSeq: number): Observable<RunEvent> {
    return this.events.subscribe(runId, afterSeq).pipe(takeWhile((event) => !endsSegment(event), true));
  }

  /**
   * The run, once a segment that ended waiting is matched by its state: a run announces what it
   * waits for just before it commits the state, and a client that answers at once must not be
   * told the run is still executing.
   */
  async settle(auth: AuthContext, runId: string): Promise<RunView> {
    const until = Date.now() + SETTLE_MS;
    for (;;) {
      const run = await this.runs.get(auth, runId);
      if (!['CREATED', 'PLANNING', 'EXECUTING'].includes(run.state) || Date.now() > until) return run;
      await sleep(SETTLE_POLL_MS);
    }
  }
}
