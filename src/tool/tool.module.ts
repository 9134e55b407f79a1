import { Module } from '@nestjs/common';
import { ToolHub } from './tool-hub';

/** Tools the agent can call: registry, policies, built-ins. */
@Module({ providers: [ToolHub], exports: [ToolHub] })
export class ToolModule {}
