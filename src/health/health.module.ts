import { Module } from '@nestjs/common';
import { RuntimeModule } from '../runtime';
import { HealthController } from './health.controller';

@Module({ imports: [RuntimeModule], controllers: [HealthController] })
export class HealthModule {}
