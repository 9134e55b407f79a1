import { ArgumentMetadata, BadRequestException, Injectable, PipeTransform } from '@nestjs/common';
import { isStorableText } from './storable-text';
import { say } from './i18n/catalogue';

/**
 * Path parameters (`:id`, `:approvalId`) are strings no DTO validates, and they reach SQL as
 * query parameters: `%00` in a URL would make the database, not the request, fail. Such a
 * parameter can name nothing that exists, so it is a 400 naming it. Bodies and query DTOs are
 * checked by `@IsStorableText()` on their fields.
 */
@Injectable()
export class StorableParamsPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'param' && typeof value === 'string' && !isStorableText(value)) {
      throw new BadRequestException(say('validation.storable', { field: metadata.data ?? 'path parameter' }));
    }
    return value;
  }
}
