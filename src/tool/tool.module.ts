import { Module } from '@nestjs/common';
import { ToolHub } from './tool-hub';
import { ToolPolicyAdmin } from './tool-policy-admin.service';
import { ToolPolicyRepository } from './tool-policy.repository';
import { ToolResolver } from './tool.resolver';

/** Tools the agent can call: registry, policies, built-ins, and the admin API for their rules. */
@Module({ providers: [ToolPolicyRepository, ToolHub, ToolPolicyAdmin, ToolResolver], exports: [ToolHub, ToolPolicyAdmin] })
export class ToolModule {}
