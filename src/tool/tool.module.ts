import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { WorkspaceModule } from '../workspace';
import { RagModule } from '../rag';
import { AskUserTool } from './builtin/ask-user';
import { CalculatorTool } from './builtin/calculator';
import { CodeExecTool } from './builtin/code-exec/code-exec.tool';
import { CurrentTimeTool } from './builtin/current-time';
import { DelegateTool } from './builtin/delegate';
import { KbGraphTool } from './builtin/kb-graph';
import { KbSearchTool } from './builtin/kb-search';
import { HttpFetchTool } from './builtin/http-fetch/http-fetch.tool';
import { FileListTool, FileReadTool } from './builtin/workdir/file-read.tools';
import { FileEditTool, FileWriteTool } from './builtin/workdir/file-write.tools';
import { ShellTool } from './builtin/workdir/shell.tool';
import { TaskTrackerTool } from './builtin/workdir/task-tracker.tool';
import { WorkdirModule } from '../workdir';
import { McpToolSource } from './mcp/mcp-tool-source';
import { ToolHub } from './tool-hub';
import { ToolPolicyAdmin } from './tool-policy-admin.service';
import { ToolPolicyRepository } from './tool-policy.repository';
import { ToolResolver } from './tool.resolver';

/** The built-in tools (each a provider marked @HelixTool; ToolHub discovers them, and those of other modules). */
const BUILTIN_TOOLS = [
  CalculatorTool, CurrentTimeTool, KbSearchTool, KbGraphTool, HttpFetchTool, AskUserTool, CodeExecTool, DelegateTool,
  FileListTool, FileReadTool, FileWriteTool, FileEditTool, TaskTrackerTool, ShellTool,
];

/** Tools the agent can call: registry, policies, built-ins, and the admin API for their rules. */
@Module({
  imports: [WorkspaceModule, DiscoveryModule, RagModule, WorkdirModule],
  providers: [ToolPolicyRepository, ToolHub, ToolPolicyAdmin, ToolResolver, McpToolSource, ...BUILTIN_TOOLS],
  exports: [ToolHub, ToolPolicyAdmin],
})
export class ToolModule {}
