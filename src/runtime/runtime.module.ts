import { Module, OnModuleInit } from '@nestjs/common';
import { AccessService } from '../security';
import { ConversationModule } from '../conversation';
import { WorkspaceModule } from '../workspace';
import { MemoryModule } from '../memory';
import { ModelModule } from '../model';
import { RagModule } from '../rag';
import { ToolModule } from '../tool';
import { AgentLoop } from './loop/agent-loop';
import { AnswerStep } from './loop/answer-step';
import { PlanSteps } from './loop/plan-steps';
import { RiskAnalyzer } from './loop/risk-analyzer';
import { AutoTitler } from './loop/auto-titler';
import { ApprovalRepository } from './store/approval.repository';
import { MemoryContextBuilder } from './loop/context-window';
import { EventBus, InProcessEventBus } from './events/event-bus';
import { RedisEventBus } from './events/redis-event-bus';
import { ClusterLink } from './cluster/cluster-link';
import { Instance } from './cluster/instance';
import { RunSignals } from './cluster/run-signals';
import { EventLog } from './events/event-log';
import { MessageController } from './api/message.controller';
import { ModelStep } from './loop/model-step';
import { RunEventRepository } from './store/run-event.repository';
import { RunAdminService } from './api/run-admin.service';
import { RunExecutor, RunQueue } from './loop/run-executor';
import { RunLeases } from './loop/run-leases';
import { RunQueryRepository } from './store/run-query.repository';
import { RunStarter } from './loop/run-starter';
import { RunCanceller } from './loop/run-canceller';
import { RunRetrieval } from './loop/run-retrieval';
import { RunStore } from './loop/run-store';
import { RunController } from './api/run.controller';
import { RuntimeGauges } from './loop/runtime-gauges';
import { RunRepository } from './store/run.repository';
import { RunResolver } from './api/run.resolver';
import { LiveRunOwners } from './loop/live-run-owners';
import { RunService } from './api/run.service';
import { SseWriter } from './events/sse-writer';
import { ContextBuilder, ConversationTitler, StepRetriever } from './loop/step-hooks';
import { StepDebug } from './loop/step-debug';
import { StepReplay } from './loop/step-replay';
import { TitleStep } from './loop/title-step';
import { OutputGate } from './loop/output-gate';
import { ToolStep } from './loop/tool-step';
import { SubrunRepository } from './store/subrun.repository';
import { SubrunStep } from './loop/subrun-step';
import { SubrunLauncher } from './loop/subrun-port';
import { RunSubrunLauncher } from './loop/subrun-launcher';

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
    // one process by default; with REDIS_URL, instances share live events and signals (docs/DEPLOY.md)
    Instance,
    ClusterLink,
    RunSignals,
    {
      provide: EventBus,
      inject: [ClusterLink, Instance],
      useFactory: (link: ClusterLink, instance: Instance) => (link.channels ? new RedisEventBus(link.channels, instance.id) : new InProcessEventBus()),
    },
    EventLog,
    RunEventRepository,
    RunRepository,
    ApprovalRepository,
    RunStore,
    ModelStep,
    StepDebug,
    StepReplay,
    ToolStep,
    // sub-runs (the `delegate` tool): started through a token the step resolves when a call comes (subrun-port.ts)
    SubrunRepository,
    SubrunStep,
    { provide: SubrunLauncher, useClass: RunSubrunLauncher },
    TitleStep,
    OutputGate,
    AnswerStep,
    PlanSteps,
    RiskAnalyzer,
    AgentLoop,
    RunLeases,
    RunExecutor,
    { provide: RunQueue, useExisting: RunExecutor },
    RunStarter,
    RunCanceller,
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
  // the OpenAI-compatible API (src/openai) starts and reads runs through these
  exports: [EventLog, RunService, SseWriter, ClusterLink],
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
