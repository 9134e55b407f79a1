import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';

/**
 * `?lang=zh|en`, which every route takes (for EventSource, which cannot send Accept-Language).
 * Query DTOs extend this so the whitelist lets it through; it is read by `requestLanguage`, not
 * here, and a value other than zh or en is ignored (the header decides), never a 400.
 */
export class LangQuery {
  @ApiPropertyOptional({ enum: ['zh', 'en'], description: 'the language of human-readable messages (wins over Accept-Language); default English' })
  @Allow()
  lang?: unknown;
}
