/** The public face of src/tool: what other modules may import from it. */
export { compileArguments, parseArguments } from './tool-arguments';
export { readAskRequest, OPTION_ID, MAX_ASK_OPTIONS, MAX_OPTION_LABEL } from './builtin/ask-user';
export type { AskOption } from './builtin/ask-user';
export { MAX_SUBRUN_DEPTH, MAX_SUBRUNS_PER_RUN, readDelegateRequest, subrunRefusal } from './builtin/delegate';
export { ToolHub, truncate } from './tool-hub';
export { ToolPolicyAdmin } from './tool-policy-admin.service';
export { ToolModule } from './tool.module';
export { DEFAULT_TOOL_OUTPUT_CHARS } from './tool.types';
export type { CitationLedger, SourceDraft, ToolContext, ToolDefinition, ToolPolicyMode, ToolResult, ToolScope } from './tool.types';
