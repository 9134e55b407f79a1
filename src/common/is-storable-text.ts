import { ValidateBy, type ValidationOptions } from 'class-validator';
import { isStorableText } from './storable-text';
import { say } from './i18n/catalogue';

/**
 * The string (or, with `{ each: true }`, every string of the array) is text PostgreSQL can store:
 * no NUL and no unpaired UTF-16 surrogate (see storable-text.ts). A client's text that fails is
 * answered with a 400 naming the field here, at the edge, instead of failing later in a write
 * that other requests share. Values that are not strings pass: `@IsString()` judges those.
 */
export function IsStorableText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isStorableText',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || isStorableText(value),
        // class-validator puts the field's name for `$property`
        defaultMessage: () => say('validation.storable', { field: '$property' }),
      },
    },
    options,
  );
}
