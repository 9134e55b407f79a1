import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsStorableText } from './is-storable-text';
import { LangQuery } from './i18n/lang-query';

/** `?limit&cursor` of a keyset-paged list (pagination.ts), and `?lang` as on every route. */
export class PageQuery extends LangQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ maxLength: 200, description: "the previous page's `nextCursor`" })
  @IsOptional()
  @IsString()
  @IsStorableText()
  @MaxLength(200)
  cursor?: string;
}
