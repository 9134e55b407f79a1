import { Module } from '@nestjs/common';
import { ConversationModule } from '../conversation/conversation.module';
import { ModelModule } from '../model/model.module';
import { ToolModule } from '../tool/tool.module';
import { AgentLoop } from './agent-loop';
import { BudgetGate, UnlimitedBudgetGate } from './budget-gate';
import { EventBus, InProcessEventBus } from './event-bus';
import { EventLog } from './event-log';
import { RunEventStore } from './run-event-store';
import { InterruptedAnswers } from './interrupted-answers';
import { MessageController } from './message.controller';
import { RunController } from './run.controller';
import { RunExecutor, RunQueue } from './run-executor';
import { RunService } from './run.service';
import { RunStore } from './run-store';
import { SseWriter } from './sse-writer';
import { ToolStep } from './tool-step';

/** Posting messages, runs and their state machine, the agent loop, the event log and SSE. */
@Module({
  imports: [ConversationModule, ModelModule, ToolModule],
  controllers: [MessageController, RunController],
  providers: [
    { provide: EventBus, useClass: InProcessEventBus },
    { provide: BudgetGate, useClass: UnlimitedBudgetGate },
    EventLog,
    RunEventStore,
    RunStore,
    ToolStep,
    InterruptedAnswers,
    AgentLoop,
    RunExecutor,
    { provide: RunQueue, useExisting: RunExecutor },
    RunService,
    SseWriter,
  ],
})
export class RuntimeModule {}
