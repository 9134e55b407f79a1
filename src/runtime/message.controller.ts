import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { Auth, type AuthContext } from '../security/auth-context';
import { PostMessageDto } from './run.dto';
import { RunService } from './run.service';

/** Posting a message starts a run, so it lives in runtime (conversation never imports runtime). */
@Controller('conversations')
export class MessageController {
  constructor(private readonly runs: RunService) {}

  @Post(':id/messages')
  post(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: PostMessageDto) {
    return this.runs.postMessage(auth, id, dto);
  }

  @Get(':id/runs/latest')
  latest(@Auth() auth: AuthContext, @Param('id') id: string) {
    return this.runs.latest(auth, id);
  }
}
