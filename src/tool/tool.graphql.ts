import { Field, ID, ObjectType, registerEnumType } from '@nestjs/graphql';
import { JsonScalar } from '../graphql';
import type { ToolPolicyMode, ToolRisk } from './tool.types';

export const TOOL_POLICY_MODES = ['always', 'confirm', 'forbid'] as const satisfies readonly ToolPolicyMode[];
export const ToolPolicyModeEnum: Record<ToolPolicyMode, ToolPolicyMode> = { always: 'always', confirm: 'confirm', forbid: 'forbid' };
registerEnumType(ToolPolicyModeEnum, {
  name: 'ToolPolicyMode',
  description: 'what a call of the tool does: run at once (`always`), wait for approval (`confirm`), or be refused (`forbid`)',
});

export const ToolRiskEnum: Record<ToolRisk, ToolRisk> = { low: 'low', high: 'high' };
registerEnumType(ToolRiskEnum, { name: 'ToolRisk' });

@ObjectType('ToolDefinition', { description: 'A tool the agent can call.' })
export class ToolDefinitionType {
  @Field()
  name!: string;

  @Field()
  description!: string;

  @Field(() => JsonScalar, { description: 'the JSON schema of its arguments' })
  parameters!: unknown;

  @Field(() => ToolRiskEnum)
  risk!: ToolRisk;

  @Field(() => ToolPolicyModeEnum, { description: 'the mode when no rule covers a call (`confirm` for high-risk tools)' })
  defaultPolicy!: ToolPolicyMode;
}

@ObjectType('ToolPolicy', {
  description: "A rule for a tool, in one conversation or (conversationId null) the whole workspace; a conversation's rule wins.",
})
export class ToolPolicyType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  workspaceId!: string;

  @Field(() => ID, { nullable: true, description: 'null: every conversation of the workspace' })
  conversationId!: string | null;

  @Field()
  tool!: string;

  @Field(() => ToolPolicyModeEnum)
  mode!: ToolPolicyMode;

  @Field()
  createdAt!: Date;
}
