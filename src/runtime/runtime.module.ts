import { Module, OnModuleInit } from '@nestjs/common';
import { AccessService } from '../security';
import { ConversationModule } from '../conversation';
import { WorkspaceModule } from '../workspace';
import { MemoryModule } from '../memory';
import { ModelModule } from '../model';
import { RagModule } from '../rag';
import { ToolModule } from '../tool';
import { AgentLoop } from './agent-loop';
import { AnswerStep } from './answer-step';
import { AutoTitler } from './auto-titler';
import { ApprovalRepository } from './approval.repository';
import { MemoryContextBuilder } from './context-window';
import { EventBus, InProcessEventBus } from './event-bus';
import { EventLog } from './event-log';
import { MessageController } from './message.controller';
import { ModelStep } from './model-step';
import { RunEventRepository } from './run-event.repository';
import { RunAdminService } from './run-admin.service';
import { RunExecutor, RunQueue } from './run-executor';
import { RunQueryRepository } from './run-query.repository';
import { RunStarter } from './run-starter';
import { RunRetrieval } from './run-retrieval';
import { RunStore } from './run-store';
import { RunController } from './run.controller';
import { RuntimeGauges } from './runtime-gauges';
import { RunRepository } from './run.repository';
import { RunResolver } from './run.resolver';
import { LiveRunOwners } from './live-run-owners';
import { RunService } from './run.service';
import { SseWriter } from './sse-writer';
import { ContextBuilder, ConversationTitler, StepRetriever } from './step-hooks';
import { StepDebug } from './step-debug';
import { StepReplay } from './step-replay';
import { TitleStep } from './title-step';
import { ToolStep } from './tool-step';

/** Posting messages, runs and their state machine, the agent loop, the event log and SSE. */
@Module({
  imports: [ConversationModule, MemoryModule, ModelModule, RagModule, ToolModule, WorkspaceModule],
  controllers: [MessageController, RunController],
  providers: [
    // the hooks of every model call (step-hooks.ts): retrieval adapts rag's search, the window memory's;
    // BudgetGate, StepTracer and RunObserver come from the global ObserveModule
    { provide: StepRetriever, useClass: RunRetrieval },
    { provide: ContextBuilder, useClass: MemoryContextBuilder },
    // after a run's final answer: memory's auto-title of a conversation that has none yet
    { provide: ConversationTitler, useClass: AutoTitler },
    { provide: EventBus, useClass: InProcessEventBus },
    EventLog,
    RunEventRepository,
    RunRepository,
    ApprovalRepository,
    RunStore,
    ModelStep,
    StepDebug,
    StepReplay,
    ToolStep,
    TitleStep,
    AnswerStep,
    AgentLoop,
    RunExecutor,
    { provide: RunQueue, useExisting: RunExecutor },
    RunStarter,
    RunService,
    LiveRunOwners,
    SseWriter,
    // the admin GraphQL API's runs
    RunQueryRepository,
    RunAdminService,
    RunResolver,
    // read by observe's metrics, which look it up by its token (the runtime never imports observe)
    RuntimeGauges,
  ],
  exports: [EventLog],
})
export class RuntimeModule implements OnModuleInit {
  constructor(
    private readonly access: AccessService,
    private readonly runs: RunRepository,
    private readonly approvals: ApprovalRepository,
    private readonly liveRuns: LiveRunOwners,
  ) {}

  /** Routes naming a run or an approval are checked against its workspace (security/access.ts). */
  onModuleInit(): void {
    // the stream a client opens right after posting needs no query (live-run-owners.ts)
    this.access.register('run', async (id) => this.liveRuns.workspaceOf(id) ?? this.runs.workspaceOf(id));
    this.access.register('approval', (id) => this.approvals.workspaceOf(id));
  }
}
