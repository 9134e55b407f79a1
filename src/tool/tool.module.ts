import { Module } from '@nestjs/common';
import { ToolHub } from './tool-hub';
import { ToolPolicyRepository } from './tool-policy.repository';

/** Tools the agent can call: registry, policies, built-ins. */
@Module({ providers: [ToolPolicyRepository, ToolHub], exports: [ToolHub] })
export class ToolModule {}
